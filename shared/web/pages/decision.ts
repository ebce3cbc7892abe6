/**
 * The decision screen (`/decide/:id`): one item full-screen — the message, the
 * agent's reasoning verbatim, the confidence gauge against the threshold, the
 * options. A plain form POST, so it works with JavaScript off.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import { describeAnswer } from '../../runs/views.ts';
import { bare, shell, type Visitor } from './layout.ts';
import { messageBlock, type MessageView } from './message.ts';
import { csrfField, gauge, label, plural, score, when, type Html } from './ui.ts';
import { onceBox, scopeBox } from './once-box.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';
import { answeredWords, draftFields } from './drafts.ts';

export interface DecisionScreen {
  decision: Decision;
  workflowName: string;
  message: MessageView;
  threshold: number;
  /** Other decisions still waiting. */
  after: number;
  /** The next waiting decision, for "Next" (only offered to a logged-in visitor). */
  nextId: string | null;
  /** The decision just answered and what it taught, for the "Recorded" notice. */
  recorded: RecordedAnswer | null;
}

/** How the visitor got here: a signed link (token) or a page session. */
export type DecisionAccess = { kind: 'token'; token: string } | { kind: 'session'; visitor: Visitor };

/** The answer buttons: the agent's suggestion first, then the workflow's options. */
function options(decision: Decision): Html {
  const rest = [...new Set([...decision.options, 'skip'])];
  return html`<div class="options options-bar" role="group" aria-label="Your answer" data-answer-bar>
    <button class="button button-primary" type="submit" name="action" value="approve_suggested">
      Do what it suggests: ${label(decision.suggested_action)}
    </button>
    ${rest.map(
      (o) =>
        html`<button
          class="button ${o === 'skip' ? 'button-quiet' : ''}"
          type="submit"
          name="action"
          value="${o}"
        >
          ${o === 'skip' ? 'Skip (leave it alone)' : label(o)}
        </button>`,
    )}
  </div>`;
}

function answerForm(screen: DecisionScreen, access: DecisionAccess): Html {
  const { decision } = screen;
  return html`<form class="answer" method="post" action="/decide/${decision.id}">
    ${
      access.kind === 'token'
        ? html`<input type="hidden" name="token" value="${access.token}" />`
        : html`${csrfField(access.visitor)}<input type="hidden" name="next" value="next" />`
    }
    ${draftFields(decision)}
    <label for="note"
      >Note <span class="muted">(why — it teaches the next run; never part of any mail)</span></label
    >
    <textarea id="note" name="note" rows="2" maxlength="2000"></textarea>
    ${onceBox('once')} ${scopeBox('scope')} ${options(decision)}
  </form>`;
}

function answered(decision: Decision): Html {
  const answer = decision.answer;
  if (decision.status === 'expired' || !answer)
    return html`<p class="callout"><strong>${describeAnswer(decision)}</strong>: nothing was done to it.</p>`;
  return html`<p class="callout callout-calm">
      <strong>${describeAnswer(decision)}</strong>, answered
      ${when(answer.at)}${answer.note ? html` with the note “${answer.note}”` : ''}.
    </p>
    ${answeredWords(decision)}`;
}

function reasoning(screen: DecisionScreen): Html {
  const { decision } = screen;
  return html`<section class="reasoning" aria-labelledby="why-title">
    <h2 id="why-title">Why it asked</h2>
    <p>
      ${decision.agent ? html`The ${decision.agent} specialist` : 'The agent'} suggests
      <strong>${label(decision.suggested_action)}</strong> (confidence ${score(decision.confidence)}):
    </p>
    <blockquote class="verbatim">${decision.reasoning}</blockquote>
    ${gauge(decision.confidence, screen.threshold)}
  </section>`;
}

function body(screen: DecisionScreen, access: DecisionAccess): Html {
  const { decision } = screen;
  const pending = decision.status === 'pending';
  const next =
    access.kind === 'session' && screen.nextId
      ? html` <a href="/decide/${screen.nextId}">Next question</a>`
      : '';
  return html`<div class="decision-head">
      <p class="eyebrow">
        ${pending ? html`<span class="pending">Waiting for you</span>` : html`<span class="status">${decision.status}</span>`}
        <span class="muted"
          >${screen.workflowName} · run
          ${access.kind === 'session' ? html`<a class="mono" href="/runs/${decision.run_id}">${decision.run_id}</a>` : html`<span class="mono">${decision.run_id}</span>`}</span
        >
      </p>
      <h1>${decision.subject || '(no subject)'}</h1>
    </div>
    <div class="decision">
      <div class="decision-main">${messageBlock(screen.message)}</div>
      <div class="decision-side">
        ${reasoning(screen)} ${pending ? answerForm(screen, access) : answered(decision)}
        <p class="after">
          ${screen.after > 0 ? html`<span class="pending">and ${screen.after} more after this</span>` : html`<span>No other questions waiting.</span>`}${next}
        </p>
      </div>
    </div>`;
}

/** The full decision page for a logged-in (or local) visitor, or a bare one for a signed link. */
export function decisionPage(screen: DecisionScreen, access: DecisionAccess, pending: number): Html {
  const title = screen.decision.subject || 'Decision';
  if (access.kind === 'token') return bare(title, body(screen, access));
  const notice = screen.recorded
    ? recordedNotice(
        screen.recorded,
        access.visitor,
        `/decide/${encodeURIComponent(screen.decision.id)}?answered=${encodeURIComponent(screen.recorded.decision.id)}`,
        `${plural(pending, 'question')} still waiting.`,
      )
    : '';
  return shell({
    title,
    nav: 'decision',
    visitor: access.visitor,
    pending,
    notice,
    body: body(screen, access),
  });
}

/** What the person sees after answering from a signed link: the answer in words, and the run's state. */
export function recordedPage(
  answered: Decision,
  runStatus: string,
  next: string | null = null,
  learned: string | null = null,
): Html {
  return bare(
    'Answer recorded',
    html`<h1>Answer recorded</h1>
      <p>
        Recorded for “${answered.subject}”: <strong>${describeAnswer(answered)}</strong>. The run is
        ${runStatus}.
      </p>
      ${learned ? html`<p data-learned>${learned}.</p>` : ''}
      ${
        next
          ? html`<p><a href="${next}">Next question from this run</a></p>`
          : html`<p class="muted">You can close this page.</p>`
      }`,
  );
}

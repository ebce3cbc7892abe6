/**
 * Talk (`/talk`): each waiting decision read aloud and answered by voice (hold the talk
 * button, or Space on it), or with the keyboard (every option is a button). With nothing
 * waiting, what is said goes to the workspace assistant. The run graph of the decision's
 * run fills in from the narrator's events. /assets/talk.js does the listening.
 */
import { html } from 'hono/html';
import type { FeedEvent } from '../../events/feed.ts';
import type { Decision, Run } from '../../records/runs.ts';
import { draftFields } from './drafts.ts';
import { shell, type Visitor } from './layout.ts';
import { graphState, NODES, type NodeState } from './trace.ts';
import { label, plural, score, type Html } from './ui.ts';

export interface TalkData {
  /** The first questions waiting (a page: answered ones give way to the next at the next visit). */
  pending: Decision[];
  /** How many wait in all (counted, not read). */
  waiting: number;
  /** Per workflow: the options that cannot be undone (a second "yes" is asked first). */
  irreversible: Map<string, Set<string>>;
  /** The run whose graph is drawn: the first decision's, else the latest. */
  run: Run | null;
  events: FeedEvent[];
  /** `HANDOFF_SPEECH_PROVIDER`: `browser` hears and speaks in the page. */
  provider: string;
  live: 'sse' | 'poll';
}

const STATE_TEXT: Record<NodeState, string> = {
  idle: 'not started',
  running: 'running…',
  done: 'done',
  paused: 'waiting for you',
  failed: 'failed',
  skipped: 'skipped',
  unknown: '—',
};

const DRAFTED: Record<string, string> = { draft_reply: 'a reply', file_ticket: 'a ticket' };

/**
 * What is read aloud about the drafted words: "A reply is drafted, an offline draft…", the
 * suggested action's first. Empty when no option carries words.
 */
export function draftedSummary(d: Decision): string {
  const drafts = [...(d.drafts ?? [])].sort(
    (a, b) => Number(b.action === d.suggested_action) - Number(a.action === d.suggested_action),
  );
  if (drafts.length === 0) return '';
  const names = drafts.map((w) => DRAFTED[w.action] ?? `words for ${label(w.action)}`).join(' and ');
  const many = drafts.length > 1;
  const offline = drafts.some((w) => w.by === 'offline')
    ? `, ${many ? 'offline drafts' : 'an offline draft'} written without a language model`
    : '';
  return `${names.charAt(0).toUpperCase()}${names.slice(1)} ${many ? 'are' : 'is'} drafted${offline}; read or change ${many ? 'them' : 'it'} on the screen before you answer.`;
}

function card(d: Decision, irreversible: Set<string>, index: number): Html {
  const options = [...new Set([...d.options, 'approve_suggested', 'skip'])];
  return html`<article
    class="question talk-card"
    data-decision="${d.id}"
    data-run="${d.run_id}"
    data-sender="${d.sender}"
    data-subject="${d.subject}"
    data-reasoning="${d.reasoning}"
    data-suggested="${label(d.suggested_action)}"
    data-suggested-action="${d.suggested_action}"
    data-drafted="${draftedSummary(d)}"
    data-options="${options
      .filter((o) => o !== 'approve_suggested')
      .map(label)
      .join(', ')}"
    ${index > 0 ? html`hidden` : ''}
    aria-labelledby="q-${index}"
  >
    <div class="question-head">
      <span class="pending">Waiting</span>
      <h2 class="question-subject" id="q-${index}">${d.subject || '(no subject)'}</h2>
    </div>
    <p class="muted small">From ${d.sender}</p>
    <p>
      Suggests <strong>${label(d.suggested_action)}</strong> at confidence ${score(d.confidence)}:
      <span class="verbatim-inline">${d.reasoning}</span>
    </p>
    ${draftFields(d, 'talk-')}
    <div class="options" role="group" aria-label="Answer with the keyboard">
      ${options.map(
        (o) =>
          html`<button
            class="button${o === 'approve_suggested' ? ' button-primary' : ''}"
            type="button"
            data-answer="${o}"
            ${irreversible.has(o) || (o === 'approve_suggested' && irreversible.has(d.suggested_action)) ? html`data-irreversible` : ''}
          >
            ${o === 'approve_suggested' ? `${label(d.suggested_action)} (as suggested)` : label(o)}
          </button>`,
      )}
    </div>
  </article>`;
}

function runGraph(data: TalkData): Html {
  const state = data.run ? graphState(data.run, data.events) : null;
  const after = data.events.at(-1)?.seq ?? 0;
  return html`<section class="talk-graph" aria-labelledby="graph-title">
    <h2 id="graph-title">The run</h2>
    <ol
      class="graph"
      aria-label="Run graph"
      data-talk-graph
      data-run-id="${data.run?.id ?? ''}"
      data-after="${String(after)}"
      data-live="${data.live}"
    >
      ${NODES.map((n) => {
        const s = state?.nodes[n].state ?? 'idle';
        return html`<li class="node node-${s}" data-node="${n}">
          <span class="node-name">${n}</span>
          <span class="node-state" data-node-state>${STATE_TEXT[s]}</span>
          <ul class="tool-list" data-tools></ul>
        </li>`;
      })}
    </ol>
    <p class="muted small">
      ${data.run ? html`<a href="/runs/${data.run.id}">Open this run</a>` : 'No run yet.'}
    </p>
  </section>`;
}

/** The Talk page. */
export function talkPage(visitor: Visitor, data: TalkData): Html {
  const count = data.waiting;
  const body = html`<h1>Talk</h1>
    <section
      class="talk"
      data-talk
      data-csrf="${visitor.csrf}"
      data-provider="${data.provider}"
      aria-describedby="talk-help"
    >
      <p id="talk-help" class="muted">
        Hold <strong>Talk</strong> (or press and hold Space on it) and say an answer: “archive it”, “file a
        ticket”, “draft a reply”, “leave it”; a drafted reply is shown in a text box: what is in it when you
        answer is what is saved. “why” repeats the reasoning, “next” moves on. Add a note after a comma:
        “archive it, newsletters can go”. Anything that cannot be undone asks for a “yes” first. With nothing
        waiting, what you say goes to the assistant.
      </p>
      <p class="talk-count" data-talk-count>
        ${count === 0 ? 'Nothing is waiting for you.' : `${plural(count, 'decision')} waiting.`}
      </p>
      <div class="talk-controls">
        <button class="button button-primary talk-button" type="button" data-talk-button aria-pressed="false">
          Talk
        </button>
        <button class="button" type="button" data-read>Read it to me</button>
        <button class="button" type="button" data-next ${data.pending.length < 2 ? html`disabled` : ''}>
          Next question
        </button>
      </div>
      <p class="talk-status" role="status" aria-live="polite" data-talk-status>Ready.</p>
      <p class="talk-heard muted small" data-talk-heard></p>
      <div data-talk-cards>
        ${data.pending.map((d, i) => card(d, data.irreversible.get(d.workflow_id) ?? new Set(), i))}
      </div>
      <section
        class="talk-assistant"
        aria-labelledby="assistant-title"
        data-assistant
        ${data.pending.length > 0 ? html`hidden` : ''}
      >
        <h2 id="assistant-title">The assistant</h2>
        <ol class="plain-list" data-assistant-log></ol>
      </section>
    </section>
    ${runGraph(data)}`;
  return shell({ title: 'Talk', nav: 'talk', visitor, pending: count, body, scripts: ['talk.js'] });
}

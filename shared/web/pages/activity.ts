/**
 * Activity (`/activity`): every decision waiting across workflows and workspaces (each
 * labelled with its workspace), answerable inline with a note.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import { describeAnswer } from '../../runs/views.ts';
import { shell, type Visitor, type WorkspaceLabel } from './layout.ts';
import { csrfField, label, plural, score, when, type Html } from './ui.ts';
import { onceBox, scopeBox } from './once-box.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';
import { draftFields } from './drafts.ts';

/** A waiting decision with the workspace it belongs to (null: the page's own, with no workspaces). */
export interface PendingItem {
  decision: Decision;
  workspace: WorkspaceLabel | null;
  workflowName: string;
}

export interface ActivityData {
  /** Waiting decisions of every workspace. */
  pending: PendingItem[];
  /** Recently answered or expired decisions, newest first. */
  recent: Decision[];
  recorded: RecordedAnswer | null;
  /** Set: only this run's questions are listed (`/activity?run=ID`). */
  run?: string | null;
}

function row(item: PendingItem, visitor: Visitor): Html {
  const d = item.decision;
  const options = [...new Set([...d.options, 'skip'])];
  const noteId = `note-${item.workspace?.id ?? ''}-${d.id}`;
  const where = item.workspace ? `?workspace=${encodeURIComponent(item.workspace.id)}` : '';
  return html`<li class="question">
    <div class="question-head">
      <span class="pending">Waiting</span>
      ${item.workspace ? html`<span class="workspace-label">${item.workspace.name}</span>` : ''}
      <a class="question-subject" href="/decide/${d.id}${where}">${d.subject || '(no subject)'}</a>
    </div>
    <p class="muted small">${d.sender} · ${item.workflowName} · asked ${when(d.created_at)}</p>
    <p>
      Suggests <strong>${label(d.suggested_action)}</strong> at confidence ${score(d.confidence)}:
      <span class="verbatim-inline">${d.reasoning}</span>
    </p>
    <form class="inline-answer" method="post" action="/decide/${d.id}${where}">
      ${csrfField(visitor)}<input type="hidden" name="next" value="/activity" />
      <label class="visually-hidden" for="${noteId}">Note for “${d.subject}”</label>
      <input
        id="${noteId}"
        name="note"
        type="text"
        maxlength="2000"
        placeholder="Note (why — it teaches the next run)"
      />
      ${draftFields(d, `${item.workspace?.id ?? ''}-`)} ${onceBox(`once-${item.workspace?.id ?? ''}-${d.id}`)}
      ${scopeBox(`scope-${item.workspace?.id ?? ''}-${d.id}`)}
      <div class="options">
        <button class="button button-primary" type="submit" name="action" value="approve_suggested">
          ${label(d.suggested_action)} <span class="visually-hidden">(as suggested)</span>
        </button>
        ${options
          .filter((o) => o !== d.suggested_action)
          .map(
            (o) => html`<button class="button" type="submit" name="action" value="${o}">${label(o)}</button>`,
          )}
      </div>
    </form>
  </li>`;
}

function recentList(recent: Decision[]): Html | string {
  if (recent.length === 0) return '';
  return html`<section aria-labelledby="recent-title">
    <h2 id="recent-title">Recently answered</h2>
    <ul class="plain-list">
      ${recent.map(
        (d) =>
          html`<li>
            <a href="/decide/${d.id}">${d.subject || '(no subject)'}</a>
            <span class="muted"
              >— ${describeAnswer(d)}${d.answer?.note ? html`: “${d.answer.note}”` : ''}</span
            >
          </li>`,
      )}
    </ul>
  </section>`;
}

/** The Activity page. */
export function activityPage(visitor: Visitor, data: ActivityData): Html {
  const count = data.pending.length;
  const notice = data.recorded
    ? recordedNotice(
        data.recorded,
        visitor,
        `/activity?answered=${encodeURIComponent(data.recorded.decision.id)}`,
      )
    : '';
  return shell({
    title: 'Activity',
    nav: 'activity',
    visitor,
    pending: count,
    notice,
    body: html`<h1>Activity</h1>
      ${
        data.run
          ? html`<p class="small" data-run-filter>
              The questions of run
              <a class="mono" href="/runs/${encodeURIComponent(data.run)}">${data.run}</a> ·
              <a href="/activity">every run’s</a>
            </p>`
          : ''
      }
      ${
        count === 0
          ? html`<p class="callout callout-calm">Nothing is waiting for you.</p>`
          : html`<p class="callout callout-amber">
              <span class="pending">${plural(count, 'pending decision')}</span>
              <span
                >Answer here, or open one to read the whole message. A run resumes once all its questions are
                answered.</span
              >
            </p>`
      }
      <ul class="questions">
        ${data.pending.map((item) => row(item, visitor))}
      </ul>
      ${recentList(data.recent)}`,
  });
}

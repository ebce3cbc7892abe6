/**
 * Workflows (`/workflows`): every workflow with its source, trigger in words, next and last
 * run, last result, and whether it can run; and the page that adds one (`/workflows/new`).
 */
import { html } from 'hono/html';
import type { Workflow } from '../../workflows/schema.ts';
import type { WorkflowStatus } from '../workflow-status.ts';
import { shell, type Visitor } from './layout.ts';
import { csrfField, flash, statusPill, when, type Html } from './ui.ts';

/** Where a workflow reads its items from, in a few words. */
export function sourceText(workflow: Workflow): string {
  const s = workflow.source;
  if (s.type === 'maildir') return `mail folder ${s.path}`;
  if (s.type === 'imap') return `mailbox ${s.user} on ${s.host}`;
  return 'items sent to its webhook';
}

/** "Ready", or why it cannot run (a workflow that cannot run is marked wherever it is listed). */
export function readinessNote(status: WorkflowStatus): Html {
  const problems = status.readiness.problems;
  if (problems.length === 0) return html`<span class="ready" data-readiness="ready">Ready</span>`;
  return html`<span class="cannot-run" data-readiness="blocked">Cannot run: ${problems.join('; ')}</span>`;
}

/** The schedule line: words, or that it is paused, or that it will not run. */
export function scheduleNote(status: WorkflowStatus): Html {
  if (status.paused) return html`${status.trigger} <span class="muted">— paused</span>`;
  if (status.readiness.problems.length > 0 && status.workflow.trigger.schedule !== undefined)
    return html`${status.trigger}
      <span class="cannot-run">— will not run until ${status.readiness.problems.join('; ')} is fixed</span>`;
  return html`${status.trigger}`;
}

/** A list of problems a save was refused for, every one. */
export function problemList(problems: readonly string[]): Html | string {
  if (problems.length === 0) return '';
  return html`<div class="problems" role="alert" data-problems>
    <p>
      <strong>Nothing was saved.</strong> Fix
      ${problems.length === 1 ? 'this' : `these ${problems.length} problems`}:
    </p>
    <ul>
      ${problems.map((p) => html`<li>${p}</li>`)}
    </ul>
  </div>`;
}

export interface WorkflowsData {
  statuses: WorkflowStatus[];
  pending: number;
  notice: string | null;
}

function card(s: WorkflowStatus): Html {
  const w = s.workflow;
  return html`<li class="workflow-card" data-workflow="${w.id}">
    <h2 class="workflow-title">
      <a href="/workflows/${encodeURIComponent(w.id)}">${w.name}</a>
      <span class="muted mono small">${w.id}</span>
    </h2>
    ${
      s.sameNameAs
        ? html`<p class="small cannot-run">
            Same name as ${s.sameNameAs}: rename one so you can tell them apart.
          </p>`
        : ''
    }
    <dl class="facts">
      <dt>Reads</dt>
      <dd>${sourceText(w)}</dd>
      <dt>Runs</dt>
      <dd data-schedule-words>${scheduleNote(s)}</dd>
      <dt>Next run</dt>
      <dd>${s.next ? html`<time datetime="${s.next.at}">${s.next.local}</time>` : '—'}</dd>
      <dt>Last run</dt>
      <dd>
        ${
          s.last
            ? html`<a href="/runs/${encodeURIComponent(s.last.id)}">${when(s.last.started_at)}</a>
                ${statusPill(s.last.status)} <span class="muted" data-last-result>${s.lastResult}</span>`
            : 'never'
        }
      </dd>
      <dt>Can run</dt>
      <dd>${readinessNote(s)}</dd>
    </dl>
  </li>`;
}

/** The Workflows page. */
export function workflowsPage(visitor: Visitor, data: WorkflowsData): Html {
  return shell({
    title: 'Workflows',
    nav: 'workflows',
    visitor,
    pending: data.pending,
    notice: flash(data.notice),
    body: html`<h1>Workflows</h1>
      <p class="page-actions">
        <a class="button button-primary" href="/chat">Describe a workflow in chat</a>
        <a class="button" href="/workflows/new">Write one</a>
      </p>
      ${
        data.statuses.length === 0
          ? html`<p>No workflows yet.</p>`
          : html`<ul class="workflow-cards">
              ${data.statuses.map(card)}
            </ul>`
      }`,
  });
}

export interface NewWorkflowData {
  yaml: string;
  problems: string[];
  pending: number;
}

/** The page that adds a workflow from its YAML (the chat builds one from a description). */
export function newWorkflowPage(visitor: Visitor, data: NewWorkflowData): Html {
  return shell({
    title: 'New workflow',
    nav: 'workflows',
    visitor,
    pending: data.pending,
    body: html`<p class="eyebrow"><a href="/workflows">Workflows</a> / new</p>
      <h1>New workflow</h1>
      <p class="lede">
        The easiest way is to <a href="/chat">describe it in chat</a>. Or start from this example: change the
        id, the name, where it reads mail and what it may do, then save. Every problem is listed before
        anything is saved.
      </p>
      ${problemList(data.problems)}
      <form class="settings wide" method="post" action="/workflows">
        ${csrfField(visitor)}
        <label for="yaml">Workflow (YAML)</label>
        <textarea id="yaml" name="yaml" rows="24" spellcheck="false" class="mono">${data.yaml}</textarea>
        <button class="button button-primary" type="submit">Save workflow</button>
      </form>`,
  });
}

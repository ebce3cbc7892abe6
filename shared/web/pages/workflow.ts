/**
 * One workflow (`/workflows/:id`): what it reads, when it runs, what it may do, the
 * credentials it needs and the rules it uses; Run now, pause/resume, rename, duplicate,
 * delete (confirmed); an edit form and, for those who want it, the YAML.
 */
import { html } from 'hono/html';
import type { Rule } from '../../records/rule.ts';
import type { WorkflowStatus } from '../workflow-status.ts';
import { shell, type Visitor } from './layout.ts';
import { problemList, readinessNote, scheduleNote, sourceText } from './workflows.ts';
import { csrfField, flash, label, statusPill, when, type Html } from './ui.ts';

/** What the edit form shows: the saved values, or those just refused. */
export interface WorkflowForm {
  name: string;
  instructions: string;
  trigger: 'manual' | 'schedule' | 'webhook';
  schedule: string;
  threshold: string;
}

export interface WorkflowPageData {
  status: WorkflowStatus;
  /** The newest live rules that apply (oldest first); `moreRules` when older ones apply too. */
  rules: Rule[];
  moreRules?: boolean;
  /** The threshold in force when the workflow sets none. */
  threshold: number;
  form: WorkflowForm;
  yaml: string;
  problems: string[];
  /** Which form the problems belong to. */
  problemsIn: 'form' | 'yaml' | 'rename' | null;
  pending: number;
  notice: string | null;
}

const id = (s: WorkflowStatus) => encodeURIComponent(s.workflow.id);

function post(visitor: Visitor, action: string, text: Html | string, cls = 'button'): Html {
  return html`<form method="post" action="${action}" class="inline-form">
    ${csrfField(visitor)}<button class="${cls}" type="submit">${text}</button>
  </form>`;
}

function controls(visitor: Visitor, s: WorkflowStatus): Html {
  const w = s.workflow;
  const scheduled = w.trigger.schedule !== undefined;
  return html`<div class="page-actions" data-workflow-actions>
    <form method="post" action="/runs" class="inline-form">
      ${csrfField(visitor)}<input type="hidden" name="workflow_id" value="${w.id}" />
      <button class="button button-primary" type="submit">Run now</button>
    </form>
    ${
      scheduled
        ? post(visitor, `/workflows/${id(s)}/${s.paused ? 'resume' : 'pause'}`, s.paused ? 'Resume' : 'Pause')
        : ''
    }
    ${post(visitor, `/workflows/${id(s)}/duplicate`, 'Duplicate')}
    <a class="button button-danger" href="/workflows/${id(s)}/delete">Delete…</a>
  </div>`;
}

function credentials(s: WorkflowStatus): Html {
  const needed = s.readiness.credentials;
  if (needed.length === 0) return html`none`;
  return html`<ul class="plain-list" data-credentials>
    ${needed.map(
      (c) =>
        html`<li>
          <span class="mono">${c.name}</span>
          ${
            c.set
              ? html`<span class="ready">set</span>`
              : html`<span class="cannot-run">missing</span> —
                  <a href="/credentials#set-${c.name}">set it</a>`
          }
        </li>`,
    )}
  </ul>`;
}

function matchText(r: Rule): string {
  const m = r.match;
  if ('sender' in m) return `mail from ${m.sender}`;
  if ('domain' in m) return `mail from @${m.domain}`;
  return `mail about ${m.keywords.join(' + ')}`;
}

function rulesUsed(rules: Rule[], more = false): Html {
  if (rules.length === 0) return html`none yet: each answer you give teaches one`;
  return html`<ul class="plain-list" data-rules>
      ${rules.map(
        (r) =>
          html`<li>
            ${r.pattern ?? matchText(r)} → ${label(r.action)}
            <span class="muted small"
              >${r.workflow_id === null ? 'every workflow' : 'this workflow only'}</span
            >
          </li>`,
      )}
    </ul>
    <p class="small">
      ${more ? html`The newest ${rules.length} shown. ` : ''}<a href="/memory"
        >See or remove them in Memory</a
      >
    </p>`;
}

function editForm(visitor: Visitor, data: WorkflowPageData): Html {
  const f = data.form;
  const option = (value: WorkflowForm['trigger'], text: string) =>
    html`<option value="${value}" ${f.trigger === value ? html`selected` : ''}>${text}</option>`;
  return html`<section aria-labelledby="edit-title">
    <h2 id="edit-title">Edit</h2>
    ${data.problemsIn === 'form' ? problemList(data.problems) : ''}
    <form class="settings" method="post" action="/workflows/${id(data.status)}">
      ${csrfField(visitor)}
      <label for="wf-name">Name</label>
      <input id="wf-name" name="name" type="text" value="${f.name}" required />
      <label for="wf-instructions">Instructions</label>
      <textarea id="wf-instructions" name="instructions" rows="8">${f.instructions}</textarea>
      <label for="wf-trigger">Runs</label>
      <select id="wf-trigger" name="trigger">
        ${option('manual', 'when I press Run now')} ${option('schedule', 'on a schedule')}
        ${option('webhook', 'when a webhook arrives')}
      </select>
      <label for="wf-schedule">Schedule</label>
      <input
        id="wf-schedule"
        name="schedule"
        type="text"
        value="${f.schedule}"
        placeholder="cron(0 8 ? * MON-FRI *)"
        aria-describedby="wf-schedule-help"
      />
      <p class="small muted" id="wf-schedule-help">
        Only with "on a schedule": <code>cron(0 8 ? * MON-FRI *)</code> is weekdays at 08:00 in your time
        zone; <code>rate(1 hour)</code> is every hour.
      </p>
      <label for="wf-threshold">Confidence threshold</label>
      <input
        id="wf-threshold"
        name="confidence_threshold"
        type="text"
        inputmode="decimal"
        value="${f.threshold}"
        placeholder="${data.threshold.toFixed(2)} (from Settings)"
      />
      <p class="small muted">Empty: the threshold from Settings (${data.threshold.toFixed(2)}).</p>
      <button class="button button-primary" type="submit">Save changes</button>
    </form>
  </section>`;
}

function yamlView(visitor: Visitor, data: WorkflowPageData): Html {
  const open = data.problemsIn === 'yaml';
  return html`<details class="yaml-view" ${open ? html`open` : ''}>
    <summary>YAML (every field, for those who want it)</summary>
    ${open ? problemList(data.problems) : ''}
    <form class="settings wide" method="post" action="/workflows/${id(data.status)}/yaml">
      ${csrfField(visitor)}
      <label for="wf-yaml">Workflow (YAML)</label>
      <textarea id="wf-yaml" name="yaml" rows="24" spellcheck="false" class="mono">${data.yaml}</textarea>
      <button class="button" type="submit">Save the YAML</button>
    </form>
  </details>`;
}

/** The workflow page. */
export function workflowPage(visitor: Visitor, data: WorkflowPageData): Html {
  const s = data.status;
  const w = s.workflow;
  const blocked = s.readiness.problems;
  return shell({
    title: w.name,
    nav: 'workflows',
    visitor,
    pending: data.pending,
    notice: flash(data.notice),
    body: html`<p class="eyebrow"><a href="/workflows">Workflows</a> / ${w.id}</p>
      <h1>${w.name}</h1>
      ${
        blocked.length > 0
          ? html`<p class="callout callout-blocked" data-cannot-run>
              <strong>This workflow cannot run:</strong> ${blocked.join('; ')}.
              ${
                s.readiness.credentials.some((c) => !c.set)
                  ? html`<a href="/credentials">Set credentials</a>`
                  : ''
              }
            </p>`
          : ''
      }
      ${controls(visitor, s)}
      <dl class="facts">
        <dt>Reads</dt>
        <dd>${sourceText(w)} · <a href="/workflows/${id(s)}/source">check the source</a></dd>
        <dt>Runs</dt>
        <dd data-schedule-words>${scheduleNote(s)}</dd>
        <dt>Next run</dt>
        <dd>${s.next ? html`<time datetime="${s.next.at}">${s.next.local}</time>` : '—'}</dd>
        <dt>Last run</dt>
        <dd>
          ${
            s.last
              ? html`<a href="/runs/${encodeURIComponent(s.last.id)}">${when(s.last.started_at)}</a>
                  ${statusPill(s.last.status)} <span data-last-result>${s.lastResult}</span>`
              : 'never'
          }
        </dd>
        <dt>Can run</dt>
        <dd>${readinessNote(s)}</dd>
        <dt>Threshold</dt>
        <dd>
          ${(w.confidence_threshold ?? data.threshold).toFixed(2)}${
            w.confidence_threshold === undefined ? ' (from Settings)' : ' (its own)'
          }
        </dd>
        <dt>May</dt>
        <dd>
          ${w.actions.map(
            (a, i) =>
              html`${i > 0 ? ', ' : ''}${label(a.name)}${a.irreversible ? html` <span class="muted">(always asks)</span>` : ''}`,
          )}
        </dd>
        <dt>Credentials</dt>
        <dd>${credentials(s)}</dd>
        <dt>Rules it uses</dt>
        <dd>${rulesUsed(data.rules, data.moreRules)}</dd>
      </dl>
      <section aria-labelledby="instructions-title">
        <h2 id="instructions-title">Instructions</h2>
        <p class="verbatim">${w.instructions}</p>
      </section>
      <section aria-labelledby="rename-title">
        <h2 id="rename-title">Rename</h2>
        ${data.problemsIn === 'rename' ? problemList(data.problems) : ''}
        <form class="inline-form" method="post" action="/workflows/${id(s)}/rename">
          ${csrfField(visitor)}
          <label class="visually-hidden" for="rename-name">New name</label>
          <input id="rename-name" name="name" type="text" value="${w.name}" required />
          <button class="button" type="submit">Rename</button>
        </form>
      </section>
      ${editForm(visitor, data)} ${yamlView(visitor, data)}`,
  });
}

/** The confirm step before a workflow is deleted: what goes and what stays. */
export function deleteWorkflowPage(visitor: Visitor, s: WorkflowStatus, pending: number): Html {
  const w = s.workflow;
  return shell({
    title: `Delete ${w.name}`,
    nav: 'workflows',
    visitor,
    pending,
    body: html`<p class="eyebrow">
        <a href="/workflows">Workflows</a> / <a href="/workflows/${id(s)}">${w.id}</a>
      </p>
      <h1>Delete ${w.name}?</h1>
      <p>
        It will not run again${w.trigger.schedule !== undefined ? ', and its schedule is removed' : ''}. Its
        past runs, their audit and the rules it learned stay.
      </p>
      <div class="page-actions">
        ${post(visitor, `/workflows/${id(s)}/delete`, html`Delete ${w.name}`, 'button button-danger')}
        <a class="button" href="/workflows/${id(s)}">Keep it</a>
      </div>`,
  });
}

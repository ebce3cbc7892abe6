/**
 * Activity (`/activity`): the questions waiting in every workspace (each labelled with its
 * workspace), grouped by run and sender domain, 50 to a page, with filters. Each group
 * accepts its suggestions (after saying what that does), rows answer one by one (a note and
 * every option under "More"), and checked rows are answered together. Every form works
 * without JavaScript; /assets/activity.js adds the keys and answers in place.
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import { describeAnswer } from '../../runs/views.ts';
import {
  acceptableInBulk,
  type ActivityList,
  type ActivityQuery,
  type Choice,
  type DomainGroup,
  type RunGroup,
  type WaitingQuestion,
} from '../activity-list.ts';
import { draftFields } from './drafts.ts';
import { shell, type Visitor, type WorkspaceLabel } from './layout.ts';
import { onceBox, scopeBox } from './once-box.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';
import { csrfField, label, plural, score, when, type Html } from './ui.ts';

export interface ActivityData {
  list: ActivityList;
  /** Recently answered or expired decisions, newest first. */
  recent: Decision[];
  recorded: RecordedAnswer | null;
  /** What a bulk answer just did, in words (from its redirect). */
  bulkNotice: string | null;
}

/** `/activity` with the query's filters and page (the page left out when it is the first). */
export function activityHref(query: Partial<ActivityQuery>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const key of ['workflow', 'run', 'sender'] as const) if (query[key]) params.set(key, query[key]);
  if (query.page && query.page > 1) params.set('page', String(query.page));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const search = params.toString();
  return search ? `/activity?${search}` : '/activity';
}

const inWorkspace = (workspace: WorkspaceLabel | null) =>
  workspace ? `?workspace=${encodeURIComponent(workspace.id)}` : '';

/** The value of a row's checkbox name: `pick:<workspace>:<decision id>`. */
export function pickName(q: Pick<WaitingQuestion, 'workspace' | 'decision'>): string {
  return `pick:${q.workspace?.id ?? ''}:${q.decision.id}`;
}

function row(q: WaitingQuestion, visitor: Visitor, back: string): Html {
  const d = q.decision;
  const where = inWorkspace(q.workspace);
  const key = `${q.workspace?.id ?? ''}-${d.id}`;
  const others = [...new Set([...d.options, 'skip'])].filter((o) => o !== d.suggested_action);
  return html`<li class="question" data-q id="q-${key}">
    <input
      class="pick"
      type="checkbox"
      form="pick"
      name="${pickName(q)}"
      value="1"
      aria-label="Select “${d.subject || '(no subject)'}”"
      data-pick
    />
    <div class="q-body">
      <div class="question-head">
        <span class="pending">Waiting</span>
        ${q.workspace ? html`<span class="workspace-label">${q.workspace.name}</span>` : ''}
        <a class="question-subject" href="/decide/${d.id}${where}" data-open
          >${d.subject || '(no subject)'}</a
        >
      </div>
      <p class="muted small q-meta">
        ${d.sender} · asked ${when(d.created_at)} · suggests <strong>${label(d.suggested_action)}</strong>
        (${score(d.confidence)})${d.reason === 'irreversible' ? html` · <em>irreversible: answer it yourself</em>` : ''}
      </p>
    </div>
    <form class="q-quick" method="post" action="/decide/${d.id}${where}" data-inplace>
      ${csrfField(visitor)}<input type="hidden" name="next" value="${back}" />
      <button
        class="button button-primary"
        type="submit"
        name="action"
        value="approve_suggested"
        data-accept
        ${d.suggested_action === 'skip' ? 'data-skip' : ''}
      >
        ${label(d.suggested_action)} <span class="visually-hidden">(as suggested)</span>
      </button>
      ${
        d.suggested_action === 'skip'
          ? ''
          : html`<button class="button" type="submit" name="action" value="skip" data-skip>skip</button>`
      }
    </form>
    <details class="q-more">
      <summary>More</summary>
      <p class="verbatim-inline small">${d.reasoning}</p>
      <form class="inline-answer" method="post" action="/decide/${d.id}${where}" data-inplace>
        ${csrfField(visitor)}<input type="hidden" name="next" value="${back}" />
        <label class="visually-hidden" for="note-${key}">Note for “${d.subject}”</label>
        <input
          id="note-${key}"
          name="note"
          type="text"
          maxlength="2000"
          placeholder="Note (why — it teaches the next run)"
        />
        ${draftFields(d, `${q.workspace?.id ?? ''}-`)} ${onceBox(`once-${key}`)} ${scopeBox(`scope-${key}`)}
        <div class="options">
          <button class="button button-primary" type="submit" name="action" value="approve_suggested">
            ${label(d.suggested_action)} <span class="visually-hidden">(as suggested, with the note)</span>
          </button>
          ${others.map(
            (o) =>
              html`<button class="button" type="submit" name="action" value="${o}">
                ${label(o)} <span class="visually-hidden">(with the note)</span>
              </button>`,
          )}
        </div>
      </form>
    </details>
  </li>`;
}

/** "Accept the N suggestions" for a run, or one sender domain of it; nothing when none may be. */
function acceptForm(
  visitor: Visitor,
  group: { workspace: WorkspaceLabel | null; runId: string; domain: string | null; all: WaitingQuestion[] },
  back: string,
): Html | string {
  const n = group.all.filter((q) => acceptableInBulk(q.decision)).length;
  if (n === 0) return '';
  return html`<form
    class="inline-form accept"
    method="post"
    action="/activity/accept${inWorkspace(group.workspace)}"
    data-inplace
  >
    ${csrfField(visitor)}<input type="hidden" name="run" value="${group.runId}" />
    ${group.domain ? html`<input type="hidden" name="sender" value="${group.domain}" />` : ''}
    <input type="hidden" name="back" value="${back}" />
    <button class="button button-quiet" type="submit" data-accept-group>
      Accept the
      ${plural(n, 'suggestion')}${group.domain ? html`<span class="visually-hidden"> from ${group.domain}</span>` : ''}
    </button>
  </form>`;
}

function domainGroup(run: RunGroup, g: DomainGroup, visitor: Visitor, back: string): Html {
  const elsewhere = g.all.length - g.shown.length;
  return html`<div class="domain-group" data-group data-domain="${g.domain}">
    <h3 class="group-head">
      <span
        >${g.domain}
        <span class="muted small"
          >· ${plural(g.all.length, 'question')}${elsewhere > 0 ? ` (${elsewhere} on other pages)` : ''}</span
        ></span
      >
      ${acceptForm(visitor, { workspace: run.workspace, runId: run.runId, domain: g.domain, all: g.all }, back)}
    </h3>
    <ul class="questions">
      ${g.shown.map((q) => row(q, visitor, back))}
    </ul>
  </div>`;
}

function runGroup(run: RunGroup, visitor: Visitor, query: ActivityQuery, back: string): Html {
  const where = inWorkspace(run.workspace);
  return html`<section class="run-group" data-group data-run="${run.runId}">
    <h2 class="group-head">
      <span
        >${run.workspace ? html`<span class="workspace-label">${run.workspace.name}</span> ` : ''}<a
          href="/runs/${run.runId}${where}"
          >${run.workflowName}</a
        >
        <span class="muted small"
          >· ${plural(run.all.length, 'question')}
          waiting${
            query.run ? '' : html` · <a href="${activityHref({ run: run.runId })}">only this run</a>`
          }</span
        ></span
      >
      ${acceptForm(visitor, { workspace: run.workspace, runId: run.runId, domain: null, all: run.all }, back)}
    </h2>
    ${run.domains.map((g) => domainGroup(run, g, visitor, back))}
  </section>`;
}

function select(name: string, text: string, choices: Choice[], chosen: string | undefined): Html {
  return html`<label class="filter"
    >${text}
    <select name="${name}">
      <option value="">All</option>
      ${choices.map(
        (c) =>
          html`<option value="${c.value}" ${c.value === chosen ? 'selected' : ''}>
            ${c.text} (${c.count})
          </option>`,
      )}
    </select></label
  >`;
}

function filters(list: ActivityList): Html {
  const q = list.query;
  return html`<form class="filters" method="get" action="/activity" role="search">
    ${select('workflow', 'Workflow', list.choices.workflows, q.workflow)}
    ${select('run', 'Run', list.choices.runs, q.run)}
    <label class="filter"
      >Sender <input type="text" name="sender" value="${q.sender ?? ''}" placeholder="address or domain"
    /></label>
    <button class="button" type="submit">Filter</button>
    ${q.workflow || q.run || q.sender ? html`<a href="/activity">Clear</a>` : ''}
  </form>
  ${q.run ? html`<p class="run-filter" data-run-filter>The questions of run <a href="/runs/${q.run}">${q.run}</a> only.</p>` : ''}`;
}

function pager(list: ActivityList): Html | string {
  if (list.pages <= 1) return '';
  const { page } = list.query;
  return html`<nav class="pager" aria-label="Pages">
    ${page > 1 ? html`<a rel="prev" href="${activityHref({ ...list.query, page: page - 1 })}">← Previous page</a>` : ''}
    <span class="muted">Page ${page} of ${list.pages}</span>
    ${
      page < list.pages
        ? html`<a rel="next" href="${activityHref({ ...list.query, page: page + 1 })}">Next page →</a>`
        : ''
    }
  </nav>`;
}

function selectionBar(visitor: Visitor, back: string): Html {
  return html`<form id="pick" class="pick-bar" method="post" action="/activity/answer" data-inplace>
    ${csrfField(visitor)}<input type="hidden" name="back" value="${back}" />
    <span class="muted small">The selected:</span>
    <button class="button" type="submit" name="action" value="approve_suggested">
      Accept their suggestions
    </button>
    <button class="button" type="submit" name="action" value="archive">Archive</button>
    <button class="button" type="submit" name="action" value="skip">Skip</button>
  </form>`;
}

const KEYS: [string, string][] = [
  ['j / k', 'next / previous question'],
  ['a', 'accept its suggestion'],
  ['s', 'skip it'],
  ['x', 'select it'],
  ['o', 'open it'],
  ['?', 'show these keys'],
];

function keysHelp(): Html {
  return html`<details class="keys-help" data-keys-help>
    <summary>Keys</summary>
    <dl>
      ${KEYS.map(
        ([k, what]) =>
          html`<dt><kbd>${k}</kbd></dt>
            <dd>${what}</dd>`,
      )}
    </dl>
  </details>`;
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

function summary(list: ActivityList): Html {
  if (list.waiting === 0) return html`<p class="callout callout-calm">Nothing is waiting for you.</p>`;
  const filtered = list.matching !== list.waiting ? ` (${list.matching} match the filters)` : '';
  return html`<p class="callout callout-amber">
    <span class="pending">${plural(list.waiting, 'pending decision')}</span>
    <span
      >${filtered} Answer here, accept a group's suggestions, or select some and answer them together.</span
    >
  </p>`;
}

/** The list part of the page: what an answer in place replaces. */
function listSection(data: ActivityData, visitor: Visitor): Html {
  const { list } = data;
  const back = activityHref(list.query);
  const recorded = data.recorded
    ? recordedNotice(
        data.recorded,
        visitor,
        activityHref(list.query, { answered: data.recorded.decision.id }),
      )
    : '';
  return html`<div id="activity" data-activity aria-live="polite">
    ${recorded}${data.bulkNotice ? html`<div class="flash flash-ok" role="status"><p>${data.bulkNotice}</p></div>` : ''}
    ${summary(list)} ${list.waiting > 0 ? html`${filters(list)} ${selectionBar(visitor, back)}` : ''}
    ${list.groups.map((g) => runGroup(g, visitor, list.query, back))}
    ${list.waiting > 0 && list.matching === 0 ? html`<p>Nothing waiting matches the filters.</p>` : ''}
    ${pager(list)}
  </div>`;
}

/** The Activity page. */
export function activityPage(visitor: Visitor, data: ActivityData): Html {
  return shell({
    title: 'Activity',
    nav: 'activity',
    visitor,
    pending: data.list.waiting,
    scripts: ['activity.js'],
    body: html`<div class="page-head">
        <h1>Activity</h1>
        ${keysHelp()}
      </div>
      ${listSection(data, visitor)} ${recentList(data.recent)}`,
  });
}

/**
 * Activity (`/activity`): the questions waiting in the selected workspace (a line names the
 * other workspaces where some wait, and switches to them), 50 to a page, grouped on the page
 * by run and sender domain, with filters. Each group accepts its suggestions (after saying
 * what that does), rows answer one by one (a note and every option under "More"), and checked
 * rows are answered together. Every form works without JavaScript; /assets/activity.js adds
 * the keys and answers in place. The rows, the group's accept form and the selection bar are
 * the run page's too (inspector.ts).
 */
import { html } from 'hono/html';
import type { Decision } from '../../records/runs.ts';
import { describeAnswer } from '../../runs/views.ts';
import {
  acceptableInBulk,
  type ActivityList,
  type ActivityQuery,
  type Choice,
  type RunGroup,
  type WaitingQuestion,
} from '../activity-list.ts';
import type { BulkNotice } from '../bulk-notice.ts';
import { bulkNoticeView } from './bulk-notice-view.ts';
import { draftFields } from './drafts.ts';
import { shell, type Visitor, type WorkspaceLabel } from './layout.ts';
import { onceBox, scopeBox } from './once-box.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';
import { csrfField, label, plural, score, when, type Html } from './ui.ts';

export interface ActivityData {
  list: ActivityList;
  /** The workspace listed (null: the app has no workspaces). */
  workspace: WorkspaceLabel | null;
  /** Recently answered or expired decisions, newest first. */
  recent: Decision[];
  recorded: RecordedAnswer | null;
  /** What a bulk answer just did and taught (from its redirect: bulk-notice.ts). */
  bulkNotice: BulkNotice | null;
}

/** `/activity` with the query's filters and page (its `after`; none on the first). */
export function activityHref(query: Partial<ActivityQuery>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const key of ['workflow', 'run', 'sender', 'after'] as const)
    if (query[key]) params.set(key, query[key]);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const search = params.toString();
  return search ? `/activity?${search}` : '/activity';
}

/** A form's or link's `?workspace=<id>`: it acts in the workspace the page showed, whatever the switcher says since. */
export const inWorkspace = (workspace: WorkspaceLabel | null) =>
  workspace ? `?workspace=${encodeURIComponent(workspace.id)}` : '';

/** The value of a row's checkbox name: `pick:<workspace>:<decision id>`. */
export function pickName(workspace: WorkspaceLabel | null, decisionId: string): string {
  return `pick:${workspace?.id ?? ''}:${decisionId}`;
}

/** Where the shared parts of a list of questions answer: its workspace, and the page to return to. */
export interface ListPlace {
  workspace: WorkspaceLabel | null;
  back: string;
}

/** One waiting question: its checkbox, its suggestion as one button, skip, and every option under "More". */
export function questionRow(q: WaitingQuestion, visitor: Visitor, place: ListPlace): Html {
  const d = q.decision;
  const { back } = place;
  const where = inWorkspace(place.workspace);
  const key = `${place.workspace?.id ?? ''}-${d.id}`;
  const others = [...new Set([...d.options, 'skip'])].filter((o) => o !== d.suggested_action);
  return html`<li class="question" data-q id="q-${key}">
    <input
      class="pick"
      type="checkbox"
      form="pick"
      name="${pickName(place.workspace, d.id)}"
      value="1"
      aria-label="Select “${d.subject || '(no subject)'}”"
      data-pick
    />
    <div class="q-body">
      <div class="question-head">
        <span class="pending">Waiting</span>
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
        ${draftFields(d, `${place.workspace?.id ?? ''}-`)} ${onceBox(`once-${key}`)}
        ${scopeBox(`scope-${key}`)}
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

/** A group that may accept its suggestions: a run, one sender domain of it, or some of its questions. */
export interface AcceptGroup {
  runId: string;
  /** The sender domain; null: the whole run. */
  domain: string | null;
  /** The questions it names (absent: every waiting question of the run, or of its domain). */
  ids?: string[];
  /** How many suggestions it accepts, when known here (null: the confirm step counts them). */
  n: number | null;
}

/** "Accept the N suggestions" for a group; the confirm step (activity-confirm.ts) comes first. Nothing when none may be. */
export function acceptForm(visitor: Visitor, group: AcceptGroup, place: ListPlace): Html | string {
  if (group.n === 0) return '';
  const where = group.domain ? html`<span class="visually-hidden"> from ${group.domain}</span>` : '';
  return html`<form
    class="inline-form accept"
    method="post"
    action="/activity/accept${inWorkspace(place.workspace)}"
    data-inplace
  >
    ${csrfField(visitor)}<input type="hidden" name="run" value="${group.runId}" />
    ${group.domain ? html`<input type="hidden" name="sender" value="${group.domain}" />` : ''}
    ${group.ids ? html`<input type="hidden" name="ids" value="${group.ids.join(',')}" />` : ''}
    <input type="hidden" name="back" value="${place.back}" />
    <button class="button button-quiet" type="submit" data-accept-group>
      ${
        group.n === null
          ? html`Accept the run's suggestions…`
          : html`Accept the ${plural(group.n, 'suggestion')}${where}`
      }
    </button>
  </form>`;
}

const acceptable = (qs: readonly WaitingQuestion[]) => qs.filter((q) => acceptableInBulk(q.decision)).length;

/** A run's questions on the page from one sender domain, with "Accept the N suggestions" for those. */
function domainGroup(
  run: RunGroup,
  g: RunGroup['domains'][number],
  visitor: Visitor,
  place: ListPlace,
): Html {
  return html`<div class="domain-group" data-group data-domain="${g.domain}">
    <h3 class="group-head">
      <span>${g.domain} <span class="muted small">· ${plural(g.shown.length, 'question')}</span></span>
      ${acceptForm(
        visitor,
        {
          runId: run.runId,
          domain: g.domain,
          ids: g.shown.map((q) => q.decision.id),
          n: acceptable(g.shown),
        },
        place,
      )}
    </h3>
    <ul class="questions">
      ${g.shown.map((q) => questionRow(q, visitor, place))}
    </ul>
  </div>`;
}

function runGroup(run: RunGroup, visitor: Visitor, query: ActivityQuery, place: ListPlace): Html {
  const where = inWorkspace(place.workspace);
  // Every question of the run is on this page: its count is exact here; else the confirm step counts.
  const whole = run.waiting !== null && run.waiting <= run.shown.length;
  const elsewhere =
    run.waiting !== null && run.waiting > run.shown.length ? run.waiting - run.shown.length : 0;
  return html`<section class="run-group" data-group data-run="${run.runId}">
    <h2 class="group-head">
      <span
        ><a href="/runs/${run.runId}${where}">${run.workflowName}</a>
        <span class="muted small"
          >· ${plural(run.waiting ?? run.shown.length, 'question')}
          waiting${
            elsewhere > 0 ? ` (${elsewhere} on other pages)` : ''
          }${query.run ? '' : html` · <a href="${activityHref({ run: run.runId })}">only this run</a>`}</span
        ></span
      >
      ${acceptForm(visitor, { runId: run.runId, domain: null, n: whole ? acceptable(run.shown) : null }, place)}
    </h2>
    ${run.domains.map((g) => domainGroup(run, g, visitor, place))}
  </section>`;
}

function select(name: string, text: string, choices: Choice[], chosen: string | undefined): Html {
  return html`<label class="filter"
    >${text}
    <select name="${name}">
      <option value="">All</option>
      ${choices.map(
        (c) => html`<option value="${c.value}" ${c.value === chosen ? 'selected' : ''}>${c.text}</option>`,
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
  if (list.offset === 0 && list.next === null) return '';
  const first = list.offset + (list.shown > 0 ? 1 : 0);
  const of = list.filtered ? '' : ` of ${list.waiting}`;
  return html`<nav class="pager" aria-label="Pages">
    ${list.offset > 0 ? html`<a rel="first" href="${activityHref({ ...list.query, after: undefined })}">← First page</a>` : ''}
    <span class="muted">Questions ${first}–${list.offset + list.shown}${of}</span>
    ${list.next ? html`<a rel="next" href="${activityHref({ ...list.query, after: list.next })}">Next page →</a>` : ''}
  </nav>`;
}

/** The checked questions' form: the rows' checkboxes belong to it (`form="pick"`). */
export function selectionBar(visitor: Visitor, place: ListPlace): Html {
  return html`<form
    id="pick"
    class="pick-bar"
    method="post"
    action="/activity/answer${inWorkspace(place.workspace)}"
    data-inplace
  >
    ${csrfField(visitor)}<input type="hidden" name="back" value="${place.back}" />
    <span class="muted small">The selected:</span>
    <button class="button" type="submit" name="action" value="approve_suggested">
      Accept their suggestions
    </button>
    <button class="button" type="submit" name="action" value="archive">Archive</button>
    <button class="button" type="submit" name="action" value="skip">Skip</button>
    ${onceBox('pick-once')}
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
  return html`<p class="callout callout-amber">
    <span class="pending">${plural(list.waiting, 'pending decision')}</span>
    <span
      >${list.filtered ? ' (those that match the filters below)' : ''} Answer here, accept a group's
      suggestions, or select some and answer them together.</span
    >
  </p>`;
}

/** "Also waiting: 3 in team-b": each a button that switches to that workspace's Activity. */
function elsewhere(visitor: Visitor): Html | string {
  const workspaces = visitor.workspaces;
  const others = workspaces?.all.filter((w) => w.id !== workspaces.current.id && w.pending > 0) ?? [];
  if (others.length === 0) return '';
  return html`<p class="muted small waiting-elsewhere" data-elsewhere>
    Also waiting:
    ${others.map(
      (w) =>
        html`<form class="inline-form" method="post" action="/workspace">
          ${csrfField(visitor)}<input type="hidden" name="workspace" value="${w.name}" />
          <input type="hidden" name="next" value="/activity" />
          <button class="link-button" type="submit">${w.pending} in ${w.name}</button>
        </form>`,
    )}
  </p>`;
}

/** The list part of the page: what an answer in place replaces. */
function listSection(data: ActivityData, visitor: Visitor): Html {
  const { list } = data;
  const place: ListPlace = { workspace: data.workspace, back: activityHref(list.query) };
  const recorded = data.recorded
    ? recordedNotice(
        data.recorded,
        visitor,
        activityHref(list.query, { answered: data.recorded.decision.id }),
      )
    : '';
  return html`<div id="activity" data-activity aria-live="polite">
    ${recorded}${bulkNoticeView(data.bulkNotice, visitor)} ${summary(list)} ${elsewhere(visitor)}
    ${list.waiting > 0 ? html`${filters(list)} ${selectionBar(visitor, place)}` : ''}
    ${list.groups.map((g) => runGroup(g, visitor, list.query, place))}
    ${list.waiting > 0 && list.shown === 0 ? html`<p>Nothing waiting matches the filters.</p>` : ''}
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

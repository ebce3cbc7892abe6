/**
 * The run inspector (`/runs/:id`): the graph (trigger → executor → completer),
 * the questions of the pause and their answers (a waiting run's answered here as on
 * Activity: its suggestions at once, or the checked ones), the handoffs to specialists, and one
 * trace of everything that happened. /assets/inspector.js fills it in live from
 * `/runs/:id/events`.
 */
import { html } from 'hono/html';
import type { AuditEntry } from '../../records/audit.ts';
import type { FeedEvent } from '../../events/feed.ts';
import type { HandoffCallEntry, HandoffOutputEntry, TraceEntry } from '../../recorder/trace.ts';
import type { Decision, Run } from '../../records/runs.ts';
import { describeCounts } from '../../runs/counts.ts';
import { describeAnswer } from '../../runs/views.ts';
import { acceptForm, questionRow, selectionBar, type ListPlace } from './activity.ts';
import { acceptableInBulk } from '../activity-list.ts';
import { shell, type Visitor, type WorkspaceLabel } from './layout.ts';
import type { Artifact } from '../../artifacts/artifacts.ts';
import { artifactsTable } from './artifacts.ts';
import { runsTable } from './overview.ts';
import { buildTrace, graphState, NODES, offset, type NodeState, type TraceRow } from './trace.ts';
import { label, plural, scrollable, statusPill, when, type Html } from './ui.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';
import type { BulkNotice } from '../bulk-notice.ts';
import { bulkNoticeView } from './bulk-notice-view.ts';
import type { DidPage } from '../../runs/what-it-did.ts';
import { pageLinks, whatItDidSection } from './run-did.ts';

/** Questions the run page lists (the rest are in Activity, filtered by the run). */
export const QUESTIONS_SHOWN = 10;
/** Artifacts the run page lists (the rest are on the Artifacts page, filtered by the run). */
export const ARTIFACTS_SHOWN = 10;
/** Trace rows (and handoffs) a page of the trace shows. */
export const TRACE_PER_PAGE = 100;

export interface InspectorData {
  run: Run;
  workflowName: string;
  events: FeedEvent[];
  audit: AuditEntry[];
  decisions: Decision[];
  pending: number;
  recorded: RecordedAnswer | null;
  /** The workspace the page shows (null: the app has no workspaces): its forms answer there. */
  workspace?: WorkspaceLabel | null;
  /** What a bulk answer just did and taught (from its redirect: bulk-notice.ts). */
  bulkNotice?: BulkNotice | null;
  /** How the page follows a running run: the SSE feed of this process, or re-reading the page. */
  live: 'sse' | 'poll';
  /** Each handoff of an item to a specialist, from the run's recorded trace. */
  handoffs?: HandoffPair[];
  /** What the run produced (drafts, tickets, its report or digest). */
  artifacts?: Artifact[];
  /** A page of what it did to each item; absent: the section is left out. */
  did?: DidPage;
  /** The page of the trace shown (0-based); null: the trace is collapsed. */
  tracePage?: number | null;
}

/** One handoff: its call item and, once control passed, its output item. */
export interface HandoffPair {
  call: HandoffCallEntry;
  output: HandoffOutputEntry | null;
}

/** The handoff pairs of a trace, in order; an output is matched to its call by tool use id. */
export function handoffPairs(entries: readonly TraceEntry[]): HandoffPair[] {
  const pairs: HandoffPair[] = [];
  const open = new Map<string, HandoffPair>();
  for (const entry of entries) {
    if (entry.kind === 'handoff_call') {
      const pair = { call: entry, output: null };
      pairs.push(pair);
      open.set(entry.tool_use_id, pair);
    } else if (entry.kind === 'handoff_output') {
      const pair = open.get(entry.tool_use_id);
      if (pair) pair.output = entry;
      open.delete(entry.tool_use_id);
    }
  }
  return pairs;
}

const STATE_TEXT: Record<NodeState, string> = {
  idle: 'not started',
  running: 'running…',
  done: 'done',
  paused: 'paused: waiting for you',
  failed: 'failed',
  skipped: 'skipped',
  unknown: '—',
};

function graph(data: InspectorData): Html {
  const state = graphState(data.run, data.events);
  return html`<ol class="graph" aria-label="Run graph">
      ${NODES.map((n) => {
        const { state: s, ms } = state.nodes[n];
        return html`<li class="node node-${s}" data-node="${n}">
          <span class="node-name">${n}</span>
          <span class="node-state" data-node-state>${STATE_TEXT[s]}${ms === null ? '' : ` · ${ms} ms`}</span>
        </li>`;
      })}
    </ol>
    ${
      state.live
        ? ''
        : html`<p class="muted small">
            The live feed of this run is gone (the server restarted, or the run ran elsewhere); the trace
            below is rebuilt from the audit log.
          </p>`
    }`;
}

/**
 * A waiting run's questions to answer here: "Accept the N suggestions" for all of them (the
 * confirm step first), the first QUESTIONS_SHOWN as Activity's rows with checkboxes, and the
 * selection bar. The forms are Activity's, returning to this page.
 */
function answerHere(data: InspectorData, waiting: Decision[], visitor: Visitor): Html {
  const { run } = data;
  const place: ListPlace = { workspace: data.workspace ?? null, back: `/runs/${run.id}` };
  const n = waiting.filter(acceptableInBulk).length;
  return html`<div class="run-group run-answers" data-run-answers>
    ${bulkFlash(data, visitor)}
    <div class="group-head">
      <span>${plural(waiting.length, 'question')} waiting</span>
      ${acceptForm(visitor, { runId: run.id, domain: null, n }, place)}
    </div>
    ${selectionBar(visitor, place)}
    <ul class="questions">
      ${waiting
        .slice(0, QUESTIONS_SHOWN)
        .map((decision) => questionRow({ decision, workflowName: data.workflowName }, visitor, place))}
    </ul>
  </div>`;
}

/** What a bulk answer just did, said where the questions are (also when it answered the last of them). */
function bulkFlash(data: InspectorData, visitor: Visitor): Html | string {
  return bulkNoticeView(data.bulkNotice, visitor);
}

function questions(data: InspectorData, visitor: Visitor): Html | string {
  const { decisions, run } = data;
  if (decisions.length === 0) return '';
  const waiting = decisions.filter((d) => d.status === 'pending');
  const settled = decisions.filter((d) => d.status !== 'pending');
  const more = waiting.length > QUESTIONS_SHOWN || settled.length > QUESTIONS_SHOWN;
  return html`<section aria-labelledby="questions-title" data-questions>
    <h2 id="questions-title">
      The pause: ${plural(decisions.length, 'question')} ${waiting.length > 0 ? 'for you' : '— none waiting'}
    </h2>
    ${
      more || waiting.length > 0
        ? html`<p class="small">
            <a href="/activity?run=${encodeURIComponent(run.id)}" data-questions-all
              >${waiting.length > 0 ? `Answer the ${plural(waiting.length, 'waiting question')} in Activity` : 'All of them in Activity'}</a
            >${more ? ` (the first ${QUESTIONS_SHOWN} are below)` : ''}
          </p>`
        : ''
    }
    ${waiting.length > 0 ? answerHere(data, waiting, visitor) : bulkFlash(data, visitor)}
    <ul class="plain-list">
      ${settled.slice(0, QUESTIONS_SHOWN).map(
        (d) =>
          html`<li>
            <span class="status status-answered">${d.status}</span>
            <a href="/decide/${d.id}">${d.subject || '(no subject)'}</a>
            <span class="muted"
              >— suggested ${label(d.suggested_action)}
              (${d.confidence.toFixed(2)})${
                d.answer ? html`; ${describeAnswer(d)}${d.answer.note ? html` “${d.answer.note}”` : ''}` : ''
              }</span
            >
          </li>`,
      )}
    </ul>
  </section>`;
}

function handedOver(output: HandoffOutputEntry): Html {
  return html`<span class="kind kind-handoff">handoff output</span> ${output.target} decides it`;
}

function handoffs(pairs: HandoffPair[], start: string): Html | string {
  if (pairs.length === 0) return '';
  const shown = pairs.slice(0, TRACE_PER_PAGE);
  return html`<section aria-labelledby="handoffs-title" data-handoffs>
    <details ${pairs.length <= 10 ? 'open' : ''}>
      <summary>
        <h2 id="handoffs-title">Handoffs: ${plural(pairs.length, 'item')} handed to specialists</h2>
      </summary>
      ${shown.length < pairs.length ? html`<p class="muted small">The first ${shown.length}; every one is in the trace.</p>` : ''}
      ${scrollable(
        'Handoffs',
        html`<table class="table trace">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Item</th>
              <th scope="col">Call item</th>
              <th scope="col">Output item</th>
            </tr>
          </thead>
          <tbody>
            ${shown.map(
              ({ call, output }) =>
                html`<tr data-handoff="${call.tool_use_id}">
                  <td class="mono nowrap">${offset(start, call.at)}</td>
                  <td class="mono">${call.item_id}</td>
                  <td>
                    <span class="kind kind-handoff">handoff call</span> ${call.source} → ${call.target}
                    <span class="detail">via ${call.via} · ${call.input}</span>
                  </td>
                  <td>${output ? handedOver(output) : html`<span class="muted">not handed over</span>`}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )}
    </details>
  </section>`;
}

function traceRow(row: TraceRow, start: string): Html {
  return html`<tr class="trace-${row.source}">
    <td class="mono nowrap">${offset(start, row.at)}</td>
    <td><span class="kind kind-${row.kind.replace(/\s+/g, '-')}">${row.kind}</span></td>
    <td>${row.text}</td>
    <td class="detail">${row.detail}</td>
    <td class="mono nowrap">${row.ms === null ? '' : `${row.ms} ms`}</td>
  </tr>`;
}

/**
 * The trace, collapsed until asked for and a page of rows at a time: a 1,000-item run's
 * thousands of rows never make the page long. Opening it (`?trace=N`) shows page N.
 */
function trace(data: InspectorData, base: string): Html {
  const rows = buildTrace(data.events, data.audit);
  const pages = Math.max(1, Math.ceil(rows.length / TRACE_PER_PAGE));
  const asked = data.tracePage ?? null;
  const page = asked === null ? 0 : Math.min(Math.max(0, asked), pages - 1);
  const shown = rows.slice(page * TRACE_PER_PAGE, (page + 1) * TRACE_PER_PAGE);
  return html`<section aria-labelledby="trace-title" id="trace">
    <details data-trace-details ${asked === null ? '' : 'open'}>
      <summary><h2 id="trace-title">Trace: ${plural(rows.length, 'row')}</h2></summary>
      <p class="muted small">
        Feed events (nodes, tool calls with timings, the pause and the answers) and the audit log’s records,
        by time.
      </p>
      ${scrollable(
        'Trace',
        html`<table class="table trace">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">What</th>
              <th scope="col">Detail</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody data-trace data-trace-last="${page + 1 >= pages ? 'yes' : 'no'}">
            ${shown.map((r) => traceRow(r, data.run.started_at))}
          </tbody>
        </table>`,
      )}
      ${pageLinks(base, 'trace', { page, pages }, { before: 'Earlier rows', after: 'Later rows' })}
    </details>
  </section>`;
}

/** What the run produced; nothing while it has produced nothing. */
function produced(artifacts: Artifact[], workflowName: string, runId: string): Html | string {
  if (artifacts.length === 0) return '';
  const names = new Map(artifacts.map((a) => [a.workflow_id, workflowName]));
  return html`<section aria-labelledby="artifacts-title" data-run-artifacts>
    <h2 id="artifacts-title">Artifacts: ${plural(artifacts.length, 'thing')} this run produced</h2>
    ${
      artifacts.length > ARTIFACTS_SHOWN
        ? html`<p class="small">
            <a href="/artifacts?run=${encodeURIComponent(runId)}" data-artifacts-all
              >All ${artifacts.length} on the Artifacts page</a
            >
            (the newest ${ARTIFACTS_SHOWN} are below)
          </p>`
        : ''
    }
    ${artifactsTable(artifacts.slice(0, ARTIFACTS_SHOWN), names, false)}
  </section>`;
}

/** The run page's address with the lists' pages it shows (each list's links change only its own). */
function base(data: InspectorData): string {
  const query = new URLSearchParams();
  if (data.did && data.did.page > 0) query.set('did', String(data.did.page));
  if (data.tracePage !== undefined && data.tracePage !== null) query.set('trace', String(data.tracePage));
  const search = query.toString();
  return `/runs/${encodeURIComponent(data.run.id)}${search ? `?${search}` : ''}`;
}

/** The inspector page. */
export function inspectorPage(visitor: Visitor, data: InspectorData): Html {
  const { run } = data;
  const terminal = run.status === 'completed' || run.status === 'skipped' || run.status === 'failed';
  const lastSeq = data.events.at(-1)?.seq ?? 0;
  const notice = data.recorded
    ? recordedNotice(
        data.recorded,
        visitor,
        `/runs/${encodeURIComponent(run.id)}?answered=${encodeURIComponent(data.recorded.decision.id)}`,
      )
    : '';
  return shell({
    title: `Run ${run.id}`,
    nav: 'runs',
    visitor,
    pending: data.pending,
    notice,
    scripts: ['inspector.js'],
    body: html`<div
      class="run"
      data-run-id="${run.id}"
      data-status="${run.status}"
      data-after="${lastSeq}"
      data-started="${run.started_at}"
      data-live="${terminal ? 'off' : data.live}"
    >
      <p class="eyebrow"><a href="/runs">Runs</a> / ${data.workflowName}</p>
      <h1>Run <span class="mono">${run.id}</span> ${statusPill(run.status, true)}</h1>
      <p class="muted">
        ${run.trigger.kind} trigger · started
        ${when(run.started_at)}${run.finished_at ? html` · finished ${when(run.finished_at)}` : ''}
      </p>
      ${graph(data)}
      <p class="summary" data-run-summary>
        ${
          run.status === 'skipped' && run.skip_reason
            ? html`Skipped: ${run.skip_reason}. The agent was not woken; nothing was done.`
            : describeCounts(run.counts)
        }${run.error ? html` — ${run.error}` : ''}
      </p>
      ${questions(data, visitor)} ${data.did ? whatItDidSection(data.did, base(data)) : ''}
      ${produced(data.artifacts ?? [], data.workflowName, run.id)}
      ${handoffs(data.handoffs ?? [], run.started_at)} ${trace(data, base(data))}
    </div>`,
  });
}

/** All runs (`/runs`). */
export function runsPage(
  visitor: Visitor,
  runs: Run[],
  names: Map<string, string>,
  pending: number,
  nextCursor: string | null = null,
): Html {
  return shell({
    title: 'Runs',
    nav: 'runs',
    visitor,
    pending,
    body: html`<h1>Runs</h1>
      ${runsTable(runs, names)}
      ${nextCursor ? html`<p><a href="/runs?cursor=${encodeURIComponent(nextCursor)}">Older runs</a></p>` : ''}`,
  });
}

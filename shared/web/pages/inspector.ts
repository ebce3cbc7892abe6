/**
 * The run inspector (`/runs/:id`): the graph (trigger → executor → completer),
 * the questions of the pause and their answers, the handoffs to specialists, and one
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
import { shell, type Visitor } from './layout.ts';
import type { Artifact } from '../../artifacts/artifacts.ts';
import { artifactsTable } from './artifacts.ts';
import { runsTable } from './overview.ts';
import { buildTrace, graphState, NODES, offset, type NodeState, type TraceRow } from './trace.ts';
import { label, plural, scrollable, statusPill, when, type Html } from './ui.ts';
import { recordedNotice, type RecordedAnswer } from './recorded-notice.ts';

export interface InspectorData {
  run: Run;
  workflowName: string;
  events: FeedEvent[];
  audit: AuditEntry[];
  decisions: Decision[];
  pending: number;
  recorded: RecordedAnswer | null;
  /** How the page follows a running run: the SSE feed of this process, or re-reading the page. */
  live: 'sse' | 'poll';
  /** Each handoff of an item to a specialist, from the run's recorded trace. */
  handoffs?: HandoffPair[];
  /** What the run produced (drafts, tickets, its report or digest). */
  artifacts?: Artifact[];
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

function questions(decisions: Decision[]): Html | string {
  if (decisions.length === 0) return '';
  return html`<section aria-labelledby="questions-title">
    <h2 id="questions-title">
      The pause: ${plural(decisions.length, 'question')}
      ${decisions.some((d) => d.status === 'pending') ? 'for you' : '— none waiting'}
    </h2>
    <ul class="plain-list">
      ${decisions.map(
        (d) =>
          html`<li>
            ${
              d.status === 'pending'
                ? html`<span class="pending">Waiting</span>`
                : html`<span class="status status-answered">${d.status}</span>`
            }
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

function handoffs(pairs: HandoffPair[], start: string): Html | string {
  if (pairs.length === 0) return '';
  return html`<section aria-labelledby="handoffs-title" data-handoffs>
    <h2 id="handoffs-title">Handoffs: ${plural(pairs.length, 'item')} handed to specialists</h2>
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
          ${pairs.map(
            ({ call, output }) =>
              html`<tr data-handoff="${call.tool_use_id}">
                <td class="mono nowrap">${offset(start, call.at)}</td>
                <td class="mono">${call.item_id}</td>
                <td>
                  <span class="kind kind-handoff">handoff call</span> ${call.source} → ${call.target}
                  <span class="detail">via ${call.via} · ${call.input}</span>
                </td>
                <td>
                  ${
                    output
                      ? html`<span class="kind kind-handoff">handoff output</span> ${output.target} decides it`
                      : html`<span class="muted">not handed over</span>`
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
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

function trace(data: InspectorData): Html {
  const rows = buildTrace(data.events, data.audit);
  return html`<section aria-labelledby="trace-title">
    <h2 id="trace-title">Trace</h2>
    <p class="muted small">
      Feed events (nodes, tool calls with timings, the pause and the answers) and the audit log’s records, by
      time.
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
        <tbody data-trace>
          ${rows.map((r) => traceRow(r, data.run.started_at))}
        </tbody>
      </table>`,
    )}
  </section>`;
}

/** What the run produced; nothing while it has produced nothing. */
function produced(artifacts: Artifact[], workflowName: string): Html | string {
  if (artifacts.length === 0) return '';
  const names = new Map(artifacts.map((a) => [a.workflow_id, workflowName]));
  return html`<section aria-labelledby="artifacts-title" data-run-artifacts>
    <h2 id="artifacts-title">Artifacts: ${plural(artifacts.length, 'thing')} this run produced</h2>
    ${artifactsTable(artifacts, names, false)}
  </section>`;
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
      ${questions(data.decisions)} ${produced(data.artifacts ?? [], data.workflowName)}
      ${handoffs(data.handoffs ?? [], run.started_at)} ${trace(data)}
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

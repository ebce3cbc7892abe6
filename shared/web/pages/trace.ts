/**
 * One trace for a run: the live feed's events (nodes, tool calls with timings,
 * the pause, the answers, the resume) and the audit log's entries (what was done
 * to each item, by whom, why), merged by time. The feed is lost on a restart; the
 * audit log is the record, so a run from before a restart still has a trace.
 */
import type { AuditEntry } from '../../records/audit.ts';
import type { FeedEvent } from '../../events/feed.ts';
import type { Run } from '../../records/runs.ts';

export const NODES = ['trigger', 'executor', 'completer'] as const;
export type NodeId = (typeof NODES)[number];
export type NodeState = 'idle' | 'running' | 'done' | 'paused' | 'failed' | 'skipped' | 'unknown';

export interface TraceRow {
  at: string;
  source: 'feed' | 'record';
  kind: string;
  text: string;
  detail: string;
  /** Tool call or node duration, when the feed carried it. */
  ms: number | null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function feedRows(events: FeedEvent[]): TraceRow[] {
  const rows: TraceRow[] = [];
  const openTools = new Map<string, TraceRow>();
  for (const e of events) {
    const tool = str(e.data.tool);
    if (e.kind === 'tool_start' && tool) {
      const row: TraceRow = {
        at: e.at,
        source: 'feed',
        kind: 'tool',
        text: tool,
        detail: 'running',
        ms: null,
      };
      openTools.set(tool, row);
      rows.push(row);
      continue;
    }
    if (e.kind === 'tool_end' && tool) {
      const row = openTools.get(tool);
      const ms = typeof e.data.ms === 'number' ? e.data.ms : null;
      openTools.delete(tool);
      if (row) Object.assign(row, { detail: 'done', ms });
      else rows.push({ at: e.at, source: 'feed', kind: 'tool', text: tool, detail: 'done', ms });
      continue;
    }
    const ms = typeof e.data.ms === 'number' ? e.data.ms : null;
    const detail = str(e.data.error) ?? str(e.data.reason) ?? str(e.data.action) ?? '';
    rows.push({ at: e.at, source: 'feed', kind: e.kind.replace('_', ' '), text: e.text, detail, ms });
  }
  return rows;
}

function auditRow(entry: AuditEntry): TraceRow {
  const who = entry.decided_by ? ` by ${entry.decided_by}` : '';
  const confidence = entry.confidence === null ? '' : ` at ${entry.confidence.toFixed(2)}`;
  const action = entry.action ? `${entry.action.replace(/_/g, ' ')}${who}${confidence}` : '';
  const text = [entry.outcome.replace('_', ' '), action].filter(Boolean).join(': ');
  const parts = [
    entry.item_id ? `item ${entry.item_id}` : null,
    entry.reasoning ? `reasoning: ${entry.reasoning}` : null,
    entry.note ? `note: “${entry.note}”` : null,
    entry.detail,
  ];
  return {
    at: entry.at,
    source: 'record',
    kind: 'record',
    text,
    detail: parts.filter((p): p is string => !!p).join(' · '),
    ms: null,
  };
}

/** Feed rows and audit rows, oldest first (stable: feed before record at the same instant). */
export function buildTrace(events: FeedEvent[], audit: AuditEntry[]): TraceRow[] {
  const rows = [...feedRows(events), ...audit.map(auditRow)];
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => a.row.at.localeCompare(b.row.at) || a.i - b.i)
    .map(({ row }) => row);
}

export interface GraphState {
  nodes: Record<NodeId, { state: NodeState; ms: number | null }>;
  /** False when the feed of this run is gone and the states come from the run record. */
  live: boolean;
}

/** Where each node stands, from the feed when it has this run, else from the run's status. */
export function graphState(run: Run, events: FeedEvent[]): GraphState {
  const nodes = Object.fromEntries(NODES.map((n) => [n, { state: 'idle', ms: null }])) as GraphState['nodes'];
  const set = (node: unknown, state: NodeState, ms: number | null = null) => {
    if (typeof node === 'string' && node in nodes) nodes[node as NodeId] = { state, ms };
  };
  if (events.length === 0) {
    const byStatus: Record<Run['status'], NodeState[]> = {
      completed: ['done', 'done', 'done'],
      waiting: ['done', 'paused', 'idle'],
      skipped: ['done', 'skipped', 'skipped'],
      failed: ['unknown', 'unknown', 'unknown'],
      running: ['unknown', 'unknown', 'unknown'],
    };
    NODES.forEach((n, i) => set(n, byStatus[run.status][i] ?? 'unknown'));
    return { nodes, live: false };
  }
  for (const e of events) {
    const ms = typeof e.data.ms === 'number' ? e.data.ms : null;
    if (e.kind === 'node_start') set(e.data.node, 'running');
    else if (e.kind === 'node_end') set(e.data.node, e.data.error ? 'failed' : 'done', ms);
    else if (e.kind === 'asked') set('executor', 'paused');
    else if (e.kind === 'resumed') set('executor', 'running');
  }
  if (run.status === 'skipped')
    for (const n of NODES) if (nodes[n].state === 'idle') nodes[n] = { state: 'skipped', ms: null };
  if (run.status === 'failed')
    for (const n of NODES) if (nodes[n].state === 'running') nodes[n] = { state: 'failed', ms: null };
  return { nodes, live: true };
}

/** `+1.234 s` after the run started. */
export function offset(runStart: string, at: string): string {
  const ms = Date.parse(at) - Date.parse(runStart);
  if (!Number.isFinite(ms)) return '';
  return `+${(Math.max(0, ms) / 1000).toFixed(3)} s`;
}

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

/**
 * Where each node stands: from the feed, held to what the run record makes certain. The feed
 * keeps only a run's latest events (a 1,000-item run's first ones are gone), so a node's start
 * may be missing: a node after one that started has run, a waiting run has passed its trigger
 * and paused in its executor, a completed run has done every node.
 */
export function graphState(run: Run, events: FeedEvent[]): GraphState {
  const nodes = Object.fromEntries(NODES.map((n) => [n, { state: 'idle', ms: null }])) as GraphState['nodes'];
  const set = (node: unknown, state: NodeState, ms: number | null = null) => {
    if (typeof node === 'string' && node in nodes) nodes[node as NodeId] = { state, ms };
  };
  for (const e of events) {
    const ms = typeof e.data.ms === 'number' ? e.data.ms : null;
    if (e.kind === 'node_start') set(e.data.node, 'running');
    else if (e.kind === 'node_end') set(e.data.node, e.data.error ? 'failed' : 'done', ms);
    else if (e.kind === 'asked') set('executor', 'paused');
    else if (e.kind === 'resumed') set('executor', 'running');
  }
  const floor = statusFloor(run, events.length > 0);
  NODES.forEach((n, i) => {
    const certain = floor[i];
    if (certain && nodes[n].state !== certain && !(certain === 'done' && nodes[n].state === 'failed'))
      nodes[n] = { state: certain, ms: certain === 'done' ? nodes[n].ms : null };
  });
  // Nodes run in order: every node before one that has started has finished.
  const started = (s: NodeState) => s !== 'idle' && s !== 'unknown';
  for (let i = NODES.length - 1; i > 0; i--) {
    if (!started(nodes[NODES[i]!].state)) continue;
    for (let j = 0; j < i; j++) {
      const before = nodes[NODES[j]!];
      if (before.state === 'idle' || before.state === 'running' || before.state === 'unknown')
        nodes[NODES[j]!] = { state: 'done', ms: before.ms };
    }
    break;
  }
  if (run.status === 'failed')
    for (const n of NODES) if (nodes[n].state === 'running') nodes[n] = { state: 'failed', ms: null };
  return { nodes, live: events.length > 0 };
}

/**
 * What the run record alone makes certain of each node (undefined: the record cannot say).
 * A running run with counts has passed its trigger; one that failed left its running nodes failed.
 */
function statusFloor(run: Run, fromFeed: boolean): (NodeState | undefined)[] {
  switch (run.status) {
    case 'completed':
      return ['done', 'done', 'done'];
    case 'waiting':
      return ['done', 'paused', 'idle'];
    case 'skipped':
      return ['done', 'skipped', 'skipped'];
    case 'running':
      if (Object.values(run.counts).some((n) => n > 0)) return ['done', 'running', undefined];
      return fromFeed ? [] : ['unknown', 'unknown', 'unknown'];
    case 'failed':
      return fromFeed ? [] : ['unknown', 'unknown', 'unknown'];
  }
}

/** `+1.234 s` after the run started. */
export function offset(runStart: string, at: string): string {
  const ms = Date.parse(at) - Date.parse(runStart);
  if (!Number.isFinite(ms)) return '';
  return `+${(Math.max(0, ms) / 1000).toFixed(3)} s`;
}

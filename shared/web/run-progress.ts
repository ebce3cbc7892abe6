/**
 * `GET /runs/:id/progress`: where a run is, small enough to poll every two seconds while it
 * runs (the run page does): its status, counts in words and numbers, and each node's state.
 */
import type { FeedEvent } from '../events/feed.ts';
import type { Run } from '../records/runs.ts';
import { describeCounts } from '../runs/counts.ts';
import { graphState, NODES, type NodeId, type NodeState } from './pages/trace.ts';

export interface RunProgress {
  id: string;
  status: Run['status'];
  /** True once the run can change no more by itself (completed, skipped, failed). */
  finished: boolean;
  counts: Run['counts'];
  /** The counts as the page says them ("8 acted (7 confident, …), 5 asked"). */
  summary: string;
  nodes: Record<NodeId, NodeState>;
  finished_at: string | null;
}

/** The progress of `run`, its nodes from the feed's `events` held to the record (see graphState). */
export function runProgress(run: Run, events: FeedEvent[]): RunProgress {
  const { nodes } = graphState(run, events);
  return {
    id: run.id,
    status: run.status,
    finished: run.status === 'completed' || run.status === 'skipped' || run.status === 'failed',
    counts: run.counts,
    summary: describeCounts(run.counts),
    nodes: Object.fromEntries(NODES.map((n) => [n, nodes[n].state])) as Record<NodeId, NodeState>,
    finished_at: run.finished_at,
  };
}

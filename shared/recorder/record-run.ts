import type { RunGraph } from '../graph/run-graph.ts';
import type { Store } from '../store/store.ts';
import { SessionRecorder, type RecorderOptions } from './recorder.ts';
import { StoreSessionSink } from './store-sink.ts';

const recorded = new WeakSet<object>();

/**
 * Binds the session recorder to a run's graph and its executor, writing to the store's
 * 'sessions' and 'usage' collections. The same call on a fresh start and on a resume in
 * another process: both append to the run's one trace. Calling it twice for one graph
 * records once.
 */
export function recordRun(
  store: Store,
  run: { id: string; workflow_id: string },
  graph: RunGraph,
  options: Partial<Pick<RecorderOptions, 'batchSize' | 'onError'>> = {},
): SessionRecorder | null {
  if (recorded.has(graph.graph)) return null;
  recorded.add(graph.graph);
  const recorder = new SessionRecorder(new StoreSessionSink(store), {
    runId: run.id,
    workflowId: run.workflow_id,
    ...options,
  });
  return recorder.watchAgent(graph.executor, { node: 'executor' }).watchGraph(graph.graph);
}

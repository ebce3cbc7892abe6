import type { RunGraph } from '../graph/run-graph.ts';
import type { Store } from '../store/store.ts';
import type { ItemHandoff } from '../agents/specialists/desk.ts';
import { SessionRecorder, TOOL_INPUT_CHARS, type RecorderOptions } from './recorder.ts';
import { jsonText, truncate } from './trace.ts';
import { StoreSessionSink } from './store-sink.ts';
import { NEW_SESSION_TAIL, type Tail } from './session-chunks.ts';

/**
 * The recorder of a run's session, writing to the store's 'sessions' and 'usage'
 * collections. Made before the run's model, so the model's repairs and retries can be
 * noted on it (`noteModelEvent`); `recordRun` then binds it to the graph. The same on a
 * fresh start and on a resume in another process: both append to the run's one trace.
 */
export function runRecorder(
  store: Store,
  run: { id: string; workflow_id: string; trace_tail?: Tail | undefined },
  options: Partial<Pick<RecorderOptions, 'batchSize' | 'onError' | 'sessionId'>> & {
    /** The session (`sessionId`, else the run's own) starts here: its end need not be read first. */
    newSession?: boolean;
  } = {},
): SessionRecorder {
  const { newSession, ...rest } = options;
  const session = rest.sessionId ?? run.id;
  // A new session starts at its beginning; the run's own goes on where its last pass left it.
  const tail = newSession ? NEW_SESSION_TAIL : session === run.id ? run.trace_tail : undefined;
  const known = new Map(tail ? [[session, tail]] : []);
  return new SessionRecorder(new StoreSessionSink(store, undefined, known), {
    runId: run.id,
    workflowId: run.workflow_id,
    ...rest,
  });
}

/**
 * Binds the recorder to a run's graph and its executor, and to the executor's
 * specialists: each handoff is its call item and output item, then the specialist's turns.
 */
export function recordRun(recorder: SessionRecorder, graph: RunGraph): SessionRecorder {
  recorder.watchAgent(graph.executor, { node: 'executor' });
  for (const { agent, name } of graph.desk?.specialists ?? [])
    recorder.watchAgent(agent, { node: 'executor', agent: name });
  graph.desk?.observe({ handedOff: (handoff) => recordHandoff(recorder, handoff) });
  return recorder.watchGraph(graph.graph);
}

async function recordHandoff(
  recorder: SessionRecorder,
  { itemId, call, output }: ItemHandoff,
): Promise<void> {
  const at = new Date().toISOString();
  const pair = { node: 'executor', source: call.source, target: call.target, tool_use_id: call.toolUseId };
  await recorder.record({
    kind: 'handoff_call',
    at,
    ...pair,
    item_id: itemId,
    via: call.via,
    input: truncate(jsonText(call.input), TOOL_INPUT_CHARS),
  });
  await recorder.record({ kind: 'handoff_output', at, ...pair, item_id: itemId, target: output.target });
}

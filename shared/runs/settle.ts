import type { Agent } from '@strands-agents/sdk';
import { Status, type Graph, type MultiAgentResult } from '@strands-agents/sdk/multiagent';
import { RunLedger } from '../run-state/run-ledger.ts';
import { releaseHolds } from '../actions/outcomes.ts';
import { auditRunFinished } from '../audit/audit.ts';
import type { Interrupt } from '@strands-agents/sdk';
import { DISPATCH_INTERRUPT } from './dispatch.ts';
import { DECISIONS_INTERRUPT, type DecisionsInterruptReason } from '../gate/gate-hook.ts';
import type { TriggerVerdict } from '../graph/nodes/trigger-node.ts';
import { stableId } from '../store/ids.ts';
import { RecordExistsError, errorMessage } from '../errors/index.ts';
import type { Workflow } from '../workflows/schema.ts';
import type { EngineDeps } from './deps.ts';
import { recordMetric } from '../logging/metrics.ts';
import { notifyRunFailed } from './failure-notice.ts';
import { dispatchTo, type Decision, type InterruptRecord, type Run } from '../records/runs.ts';
import { changeRun } from './run-repository.ts';

export { summarise, type RunSummary } from './views.ts';

/** Invokes the graph and moves the run to what happened: waiting, completed, skipped or failed. */
export async function invokeAndSettle(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  graph: Graph,
  executor: Agent,
  input: Parameters<Graph['invoke']>[0],
): Promise<Run> {
  let result: MultiAgentResult;
  try {
    result = await graph.invoke(input);
  } catch (error) {
    return fail(deps, run, executor, error);
  }
  const next = result.interrupts?.find((i) => i.name === DISPATCH_INTERRUPT);
  if (result.status === Status.INTERRUPTED && next) return dispatchNext(deps, run, executor, next);
  if (result.status === Status.INTERRUPTED) return pause(deps, run, workflow, executor, result);
  if (result.status !== Status.COMPLETED) {
    const nodeError = result.results.find((r) => r.status === Status.FAILED)?.error;
    return fail(
      deps,
      run,
      executor,
      result.error ?? nodeError ?? new Error(`the run ended ${result.status}`),
    );
  }
  const verdict = result.results.find((r) => r.nodeId === 'trigger')?.structuredOutput as
    TriggerVerdict | undefined;
  const triggered = Array.isArray(input) || verdict?.triggered === true; // a resume was triggered before it paused
  const finished = await changeRun(deps.store, run.id, () => ({
    status: triggered ? 'completed' : 'skipped',
    dispatch: null,
    counts: RunLedger.of(executor.appState).counts(),
    snapshot: null,
    owner: null,
    finished_at: new Date().toISOString(),
  }));
  if (!triggered) {
    const reason = verdict?.reason;
    await auditRunFinished(deps.store, run, `skipped: ${reason ?? 'not triggered'}`);
  }
  deps.emit(run.id, 'completed', triggered ? 'Run completed' : 'Run skipped: nothing to do', {
    status: finished.status,
  });
  return finished;
}

/** Saves where the run stopped and sends the next node to its own process. */
async function dispatchNext(deps: EngineDeps, run: Run, executor: Agent, raised: Interrupt): Promise<Run> {
  const node = (raised.reason as { node?: string } | undefined)?.node;
  if (node !== 'executor' && node !== 'completer')
    return fail(deps, run, executor, new Error(`cannot dispatch to node ${node}`));
  const dispatched = await changeRun(deps.store, run.id, () => ({
    dispatch: dispatchTo(node, raised.id, run.dispatch?.node ?? null),
    counts: RunLedger.of(executor.appState).counts(),
    owner: null,
  }));
  await deps.dispatcher!.dispatch({ run_id: run.id, node });
  return dispatched;
}

async function pause(
  deps: EngineDeps,
  run: Run,
  workflow: Workflow,
  executor: Agent,
  result: MultiAgentResult,
): Promise<Run> {
  const raised = result.interrupts?.find((i) => i.name === DECISIONS_INTERRUPT);
  if (!raised) return fail(deps, run, executor, new Error('the run paused without a decisions interrupt'));
  const { item_ids: asked } = raised.reason as unknown as DecisionsInterruptReason;
  const askedIds = new Set(asked);
  const items = RunLedger.of(executor.appState)
    .deferred()
    .filter((d) => askedIds.has(d.item_id));
  const interruptId = stableId('int', run.id, raised.id);
  const now = new Date();
  const expires = new Date(now.getTime() + deps.settings.decisionTtlHours * 3_600_000).toISOString();
  const decisions: Omit<Decision, 'version'>[] = items.map((item) => ({
    id: stableId('dec', run.id, item.item_id),
    run_id: run.id,
    interrupt_id: interruptId,
    workflow_id: workflow.id,
    item_id: item.item_id,
    sender: item.sender,
    subject: item.subject,
    suggested_action: item.suggested_action,
    confidence: item.confidence,
    reasoning: item.reasoning,
    snippet: item.snippet,
    reason: item.reason,
    options: workflow.human_gate.options,
    ...(item.agent !== undefined ? { agent: item.agent } : {}),
    status: 'pending',
    answer: null,
    created_at: now.toISOString(),
    expires_at: expires,
  }));
  for (const decision of decisions) await createOnce(deps, 'decisions', decision);
  const interrupt: Omit<InterruptRecord, 'version'> = {
    id: interruptId,
    run_id: run.id,
    workflow_id: workflow.id,
    strands_interrupt_id: raised.id,
    decision_ids: decisions.map((d) => d.id),
    status: 'open',
    created_at: now.toISOString(),
  };
  await createOnce(deps, 'interrupts', interrupt);
  const waiting = await changeRun(deps.store, run.id, () => ({
    status: 'waiting',
    dispatch: null,
    interrupt_id: interruptId,
    counts: RunLedger.of(executor.appState).counts(),
    owner: null,
  }));
  recordMetric('ItemsAsked', decisions.length);
  deps.emit(run.id, 'asked', `${decisions.length} question(s) for you`, {
    interrupt_id: interruptId,
    count: decisions.length,
  });
  try {
    await deps.notifier.notify({
      kind: 'asked',
      runId: run.id,
      workflowName: workflow.name,
      count: decisions.length,
      link: await deps.links.urlFor(decisions[0]!.id, new Date(expires)),
    });
  } catch (error) {
    return skipUnasked(deps, waiting, error);
  }
  return waiting;
}

/**
 * Nobody can be asked: every question of the run is skipped — never decided — and the
 * failure is visible on the run's feed and in the audit.
 */
async function skipUnasked(deps: EngineDeps, run: Run, error: unknown): Promise<Run> {
  const reason = `the person could not be reached (${errorMessage(error)}); the items were skipped, nothing was done to them`;
  deps.emit(run.id, 'failed', reason, {});
  const { expireUnreachable } = await import('./housekeeping.ts');
  return expireUnreachable(deps, run.id, reason);
}

async function createOnce(deps: EngineDeps, collection: 'decisions' | 'interrupts', record: { id: string }) {
  try {
    await deps.store.create(collection, record);
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error;
  }
}

async function fail(deps: EngineDeps, run: Run, executor: Agent, error: unknown): Promise<Run> {
  const reason = errorMessage(error);
  const failed = await changeRun(deps.store, run.id, () => ({
    status: 'failed',
    dispatch: null,
    error: reason,
    snapshot: null,
    counts: RunLedger.of(executor.appState).counts(),
    owner: null,
    finished_at: new Date().toISOString(),
  }));
  await releaseHolds(deps.store, run); // the items it held are asked again by the next run
  await auditRunFinished(deps.store, run, `failed: ${reason}`);
  recordMetric('RunsFailed');
  deps.emit(run.id, 'failed', `Run failed: ${reason}`, {});
  await notifyRunFailed(deps, failed, reason);
  return failed;
}

import { VersionConflictError, errorMessage } from '../errors/index.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { DecisionAnswer } from '../run-state/run-ledger.ts';
import { decisionsOf, getInterrupt } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import type { Step } from './dispatch.ts';
import { withPreparedRun } from './prepare.ts';
import { dispatchTo, RunSchema, type Run } from '../records/runs.ts';
import { changeRun, getRun, thisProcess } from './run-repository.ts';
import { olderThan, STEP_LEASE_MS } from './dispatch-timing.ts';
import { log } from '../logging/log.ts';
import { invokeAndSettle } from './settle.ts';

/**
 * Resumes a waiting run once every decision of its interrupt is answered or expired.
 * Taking the run is a conditional write, so of two resumers only one acts. In dispatch
 * mode the resume itself is sent to its own process (the resume Lambda).
 */
export async function resumeIfReady(deps: EngineDeps, runId: string): Promise<Run> {
  const run = await getRun(deps.store, runId);
  if (run.status !== 'waiting' || !run.interrupt_id) return run;
  const interrupt = await getInterrupt(deps.store, run.interrupt_id);
  const decisions = await decisionsOf(deps.store, interrupt);
  if (decisions.some((d) => d.status === 'pending')) return run;

  let taken: Run;
  try {
    const dispatch = deps.dispatcher ? dispatchTo('resume', interrupt.strands_interrupt_id, null) : null;
    await deps.store.update(
      'runs',
      { ...run, status: 'running', dispatch, owner: thisProcess() },
      run.version,
    );
    taken = await getRun(deps.store, runId);
  } catch (error) {
    if (error instanceof VersionConflictError) return getRun(deps.store, runId); // another resumer won
    throw error;
  }
  await deps.store.update('interrupts', { ...interrupt, status: 'resumed' }, interrupt.version);
  deps.emit(run.id, 'resumed', 'Every question answered; resuming', { interrupt_id: interrupt.id });
  if (deps.dispatcher) {
    try {
      await deps.dispatcher.dispatch({ run_id: run.id, node: 'resume' });
    } catch (error) {
      // The answers are saved and the run is marked for its resume step: the sweeper sends it again.
      const reason = errorMessage(error);
      log.error(`run ${run.id}: the resume dispatch failed (${reason}); the sweeper re-sends it`, {
        run_id: run.id,
        workflow_id: run.workflow_id,
      });
      deps.emit(run.id, 'resumed', 'Resume delayed: the dispatch failed and will be sent again', {});
    }
    return taken;
  }
  return continueRun(deps, taken, 'resume');
}

/**
 * Runs the step a run was dispatched to (dispatch mode: the node's own Lambda). A
 * duplicate or late delivery finds the run moved on and does nothing. Re-running a step
 * is safe: items already acted on are claimed and never acted on again.
 */
export async function runStep(deps: EngineDeps, runId: string, step: Step): Promise<Run> {
  const run = await getRun(deps.store, runId);
  if (run.status === 'running' && run.dispatch && run.dispatch.from === step && run.dispatch.node !== step) {
    // A retry of the step that dispatched: its dispatch may have been lost, so send it again.
    await deps.dispatcher?.dispatch({ run_id: run.id, node: run.dispatch.node });
    return run;
  }
  if (run.status !== 'running' || run.dispatch?.node !== step) return run;
  const now = new Date();
  // Another delivery of this step is running it (or died recently: the sweeper re-sends it after the lease).
  if (!olderThan(run.dispatch.taken_at, STEP_LEASE_MS, now)) return run;
  let taken: Run;
  try {
    taken = await takeStep(deps, run, now);
  } catch (error) {
    if (error instanceof VersionConflictError) return getRun(deps.store, runId); // another delivery took it
    throw error;
  }
  try {
    return await continueRun(deps, taken, step);
  } catch (error) {
    await releaseStep(deps, taken); // so the function's own retry takes it again
    throw error;
  }
}

/** Marks the step taken by this process: a conditional write, so two deliveries never both run it. */
async function takeStep(deps: EngineDeps, run: Run, now: Date): Promise<Run> {
  const dispatch = { ...run.dispatch!, taken_at: now.toISOString() };
  return RunSchema.parse(
    await deps.store.update('runs', { ...run, dispatch, owner: thisProcess() }, run.version),
  );
}

async function releaseStep(deps: EngineDeps, taken: Run): Promise<void> {
  try {
    await changeRun(deps.store, taken.id, (run) =>
      run.dispatch?.taken_at === taken.dispatch?.taken_at && run.dispatch
        ? { dispatch: { ...run.dispatch, taken_at: null } }
        : {},
    );
  } catch (error) {
    log.error(`run ${taken.id}: could not release its step (${String(error)}); the sweeper will`, {
      run_id: taken.id,
      workflow_id: taken.workflow_id,
    });
  }
}

/**
 * Runs the graph from `step` until the run completes, fails or pauses. A set-up that
 * throws fails the run at once in one process; a Lambda step throws, for its retries.
 */
async function continueRun(deps: EngineDeps, run: Run, step: Step): Promise<Run> {
  const workflow = await getWorkflow(deps.store, run.workflow_id);
  const input = await stepInput(deps, run, step);
  const onSetupError = deps.dispatcher ? 'throw' : 'fail-run';
  return withPreparedRun(deps, run, workflow, { onSetupError, step }, ({ graph, executor }) =>
    invokeAndSettle(deps, run, workflow, graph, executor, input),
  );
}

/** What the graph is resumed with: the step to run, or the person's answers. */
async function stepInput(
  deps: EngineDeps,
  run: Run,
  step: Step,
): Promise<Parameters<typeof invokeAndSettle>[5]> {
  if (step !== 'resume') {
    const interruptId = run.dispatch!.interrupt_id;
    return [{ interruptResponse: { interruptId, response: { node: step } } }];
  }
  const interrupt = await getInterrupt(deps.store, run.interrupt_id!);
  const answers: DecisionAnswer[] = (await decisionsOf(deps.store, interrupt)).map((d) => ({
    decision_id: d.id,
    item_id: d.item_id,
    action: d.answer?.action ?? 'skip',
    note: d.answer?.note ?? null,
    by: d.status === 'answered' ? 'human' : d.answer?.by === 'unreachable' ? 'unreachable' : 'expired',
    reason: d.answer?.reason ?? null,
  }));
  return [
    { interruptResponse: { interruptId: interrupt.strands_interrupt_id, response: { answers } as never } },
  ];
}

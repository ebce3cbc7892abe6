import { VersionConflictError } from '../errors/index.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { DecisionAnswer } from '../agents/executor/run-context.ts';
import { decisionsOf, getInterrupt } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import type { Step } from './dispatch.ts';
import { prepareRun } from './prepare.ts';
import type { Run } from './records.ts';
import { getRun, thisProcess } from './run-repository.ts';
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
    const dispatch = deps.dispatcher
      ? { node: 'resume' as const, interrupt_id: interrupt.strands_interrupt_id }
      : null;
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
    await deps.dispatcher.dispatch({ run_id: run.id, node: 'resume' });
    return taken;
  }
  return continueRun(deps, taken, 'resume');
}

/**
 * Runs the step a run was handed over for (dispatch mode: the node's own Lambda). A
 * duplicate or late delivery finds the run moved on and does nothing. Re-running a step
 * is safe: items already acted on are claimed and never acted on again.
 */
export async function runStep(deps: EngineDeps, runId: string, step: Step): Promise<Run> {
  const run = await getRun(deps.store, runId);
  if (run.status === 'running' && run.dispatch && run.dispatch.from === step && run.dispatch.node !== step) {
    // A retry of the step that handed over: its hand-off may have been lost, so send it again.
    await deps.dispatcher?.dispatch({ run_id: run.id, node: run.dispatch.node });
    return run;
  }
  if (run.status !== 'running' || run.dispatch?.node !== step) return run;
  return continueRun(deps, run, step);
}

async function continueRun(deps: EngineDeps, run: Run, step: Step): Promise<Run> {
  const workflow = await getWorkflow(deps.store, run.workflow_id);
  const { graph, executor } = await prepareRun(deps, run, workflow);
  if (step !== 'resume') {
    const interruptId = run.dispatch!.interrupt_id;
    return invokeAndSettle(deps, run, workflow, graph, executor, [
      { interruptResponse: { interruptId, response: { node: step } } },
    ]);
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
  return invokeAndSettle(deps, run, workflow, graph, executor, [
    { interruptResponse: { interruptId: interrupt.strands_interrupt_id, response: { answers } as never } },
  ]);
}

import { VersionConflictError } from '../errors/index.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { decisionsOf, getInterrupt } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { prepareRun } from './prepare.ts';
import type { Run } from './records.ts';
import { getRun, thisProcess } from './run-repository.ts';
import { invokeAndSettle } from './settle.ts';
import type { DecisionAnswer } from '../agents/executor/run-context.ts';

/**
 * Resumes a waiting run once every decision of its interrupt is answered or expired.
 * Taking the run is a conditional write, so of two resumers only one acts.
 */
export async function resumeIfReady(deps: EngineDeps, runId: string): Promise<Run> {
  const run = await getRun(deps.store, runId);
  if (run.status !== 'waiting' || !run.interrupt_id) return run;
  const interrupt = await getInterrupt(deps.store, run.interrupt_id);
  const decisions = await decisionsOf(deps.store, interrupt);
  if (decisions.some((d) => d.status === 'pending')) return run;

  let taken: Run;
  try {
    taken = await deps.store
      .update('runs', { ...run, status: 'running', owner: thisProcess() }, run.version)
      .then(() => getRun(deps.store, runId));
  } catch (error) {
    if (error instanceof VersionConflictError) return getRun(deps.store, runId); // another resumer won
    throw error;
  }
  await deps.store.update('interrupts', { ...interrupt, status: 'resumed' }, interrupt.version);
  deps.emit(run.id, 'resumed', 'Every question answered; resuming', { interrupt_id: interrupt.id });

  const answers: DecisionAnswer[] = decisions.map((d) => ({
    decision_id: d.id,
    item_id: d.item_id,
    action: d.answer?.action ?? 'skip',
    note: d.answer?.note ?? null,
    by: d.status === 'answered' ? 'human' : 'expired',
  }));
  const workflow = await getWorkflow(deps.store, run.workflow_id);
  const { graph, executor } = await prepareRun(deps, taken, workflow);
  return invokeAndSettle(deps, taken, workflow, graph, executor, [
    { interruptResponse: { interruptId: interrupt.strands_interrupt_id, response: { answers } as never } },
  ]);
}

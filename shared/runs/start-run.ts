import { getWorkflow } from '../workflows/repository.ts';
import { resolveWorkflow } from '../workflows/resolve.ts';
import type { EngineDeps } from './deps.ts';
import type { Run, RunTrigger } from '../records/runs.ts';
import { createRun } from './lifecycle.ts';
import { getRun } from './run-repository.ts';
import { recordMetric } from '../logging/metrics.ts';
import { RecordExistsError } from '../errors/index.ts';
import { olderThan, TRIGGER_LEASE_MS } from './dispatch-timing.ts';
import { drive } from './run-loop.ts';

/** Creates the run record; the caller may answer with its id before the work is done. */
export async function createRunFor(
  deps: EngineDeps,
  workflowId: string,
  trigger: RunTrigger,
  runId?: string,
): Promise<Run> {
  const workflow = await getWorkflow(deps.store, workflowId);
  const { pins } = await resolveWorkflow(deps.store, workflow); // the versions the run reads, for good
  const run = await createRun(deps.store, workflow.id, trigger, runId, pins); // with its audit entry
  recordMetric('RunsStarted');
  deps.emit(run.id, 'started', `Run of ${workflow.name} started (${trigger.kind})`, {
    workflow_id: workflow.id,
  });
  return run;
}

/** Runs a created run through the graph until it completes, is skipped, fails or pauses. */
export async function executeRun(deps: EngineDeps, run: Run): Promise<Run> {
  // Nothing ran when the set-up throws (say the model provider cannot be made): the run fails now.
  return drive(deps, run, 'trigger');
}

/** Starts a workflow run and works it until it completes or pauses for the person. */
export async function startRun(deps: EngineDeps, workflowId: string, trigger: RunTrigger): Promise<Run> {
  return executeRun(deps, await createRunFor(deps, workflowId, trigger));
}

/**
 * Starts the run `runId` unless it exists: a second delivery of the same trigger (schedulers
 * deliver at least once; a function is retried) starts nothing new. It only finishes what
 * the first delivery could not: re-sends a dispatch nobody took, or re-runs a trigger step
 * whose process died (nothing is acted on before the executor step).
 */
export async function startRunOnce(
  deps: EngineDeps,
  workflowId: string,
  trigger: RunTrigger,
  runId: string,
): Promise<{ run: Run; duplicate: boolean }> {
  let run: Run;
  try {
    run = await createRunFor(deps, workflowId, trigger, runId);
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error;
    return { run: await redeliver(deps, await getRun(deps.store, runId)), duplicate: true };
  }
  return { run: await executeRun(deps, run), duplicate: false };
}

async function redeliver(deps: EngineDeps, run: Run, now = new Date()): Promise<Run> {
  if (run.status !== 'running') return run;
  if (run.dispatch) {
    if (run.dispatch.from === null && run.dispatch.taken_at === null)
      await deps.dispatcher?.dispatch({ run_id: run.id, node: run.dispatch.node });
    return run;
  }
  // The first delivery is still in its trigger step, or died there (it cannot outlive its timeout).
  return olderThan(run.started_at, TRIGGER_LEASE_MS, now) ? executeRun(deps, run) : run;
}

import { appendAudit } from '../audit/audit.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { EngineDeps } from './deps.ts';
import { prepareRun } from './prepare.ts';
import type { Run, RunTrigger } from './records.ts';
import { createRun } from './run-repository.ts';
import { invokeAndSettle } from './settle.ts';

/** Creates the run record; the caller may answer with its id before the work is done. */
export async function createRunFor(deps: EngineDeps, workflowId: string, trigger: RunTrigger): Promise<Run> {
  const workflow = await getWorkflow(deps.store, workflowId);
  const run = await createRun(deps.store, workflow.id, trigger);
  await appendAudit(deps.store, {
    run_id: run.id,
    workflow_id: workflow.id,
    item_id: null,
    outcome: 'run_started',
    action: null,
    decided_by: null,
    detail: `${trigger.kind} trigger`,
  });
  deps.emit(run.id, 'started', `Run of ${workflow.name} started (${trigger.kind})`, {
    workflow_id: workflow.id,
  });
  return run;
}

/** Runs a created run through the graph until it completes, is skipped, fails or pauses. */
export async function executeRun(deps: EngineDeps, run: Run): Promise<Run> {
  const workflow = await getWorkflow(deps.store, run.workflow_id);
  const { graph, executor } = await prepareRun(deps, run, workflow);
  return invokeAndSettle(deps, run, workflow, graph, executor, JSON.stringify(run.trigger));
}

/** Starts a workflow run and works it until it completes or pauses for the person. */
export async function startRun(deps: EngineDeps, workflowId: string, trigger: RunTrigger): Promise<Run> {
  return executeRun(deps, await createRunFor(deps, workflowId, trigger));
}

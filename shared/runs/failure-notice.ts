import { log } from '../logging/log.ts';
import { getRecord } from '../store/records.ts';
import { WorkflowSchema } from '../workflows/schema.ts';
import type { EngineDeps } from './deps.ts';
import type { Run } from '../records/runs.ts';
import { errorMessage } from '../errors/index.ts';

/** What telling the person about a failed run needs. */
export type FailureNoticeDeps = Pick<EngineDeps, 'store' | 'emit' | 'notifier' | 'links'>;

/**
 * Tells the person a run failed, on the configured channel, with the reason and a link
 * to the run. The run is already failed: a notice that cannot go out is reported on the
 * run's feed and in the log, never thrown over the failure it was about.
 */
export async function notifyRunFailed(deps: FailureNoticeDeps, run: Run, reason: string): Promise<void> {
  try {
    const workflow = await getRecord(deps.store, 'workflows', WorkflowSchema, run.workflow_id);
    await deps.notifier.notify({
      kind: 'failed',
      runId: run.id,
      workflowName: workflow?.name ?? run.workflow_id,
      reason,
      link: await deps.links.runUrl(run.id),
    });
  } catch (error) {
    const why = errorMessage(error);
    deps.emit(run.id, 'failed', `Nobody was told the run failed: ${why}`, {});
    log.warn(`run ${run.id} failed and nobody was told: ${why}`);
  }
}

/**
 * Tells the person a workflow's schedule could not be kept in step with it (made, changed or
 * removed), so its runs do not start on time: the reason and the Schedules page. Like a run's
 * failure notice, one that cannot go out is logged, never thrown.
 */
export async function notifyScheduleFailed(
  deps: Pick<FailureNoticeDeps, 'store' | 'notifier' | 'links'>,
  workflowId: string,
  reason: string,
): Promise<boolean> {
  try {
    const workflow = await getRecord(deps.store, 'workflows', WorkflowSchema, workflowId);
    await deps.notifier.notify({
      kind: 'schedule_failed',
      workflowName: workflow?.name ?? workflowId,
      reason,
      link: await deps.links.schedulesUrl(),
    });
    return true;
  } catch (error) {
    log.warn(`the schedule of workflow ${workflowId} failed and nobody was told: ${errorMessage(error)}`);
    return false;
  }
}

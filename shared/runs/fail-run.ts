import { releaseHolds } from '../actions/outcomes.ts';
import { auditRunFinished } from '../audit/audit.ts';
import { NotFoundError, VersionConflictError } from '../errors/index.ts';
import type { Step } from './dispatch.ts';
import { recordMetric } from '../logging/metrics.ts';
import { notifyRunFailed, type FailureNoticeDeps } from './failure-notice.ts';
import type { Run } from '../records/runs.ts';
import { getRun } from './run-repository.ts';

const ATTEMPTS = 3;

export type MarkFailedResult =
  | { marked: true; run: Run }
  | { marked: false; run: Run | null; why: 'missing' | 'finished' | 'waiting' | 'moved_on' };

/**
 * Marks a run failed with `reason` after the process running it gave up (a Lambda step
 * whose retries are exhausted). A conditional write: a run already completed, skipped or
 * failed is left alone, as is a waiting run (its questions stay answerable) and, when
 * `step` is given, a run that has since moved to another step. The audit gets the
 * run_finished entry the run never wrote, and the person is told (reason and link).
 */
export async function markRunFailed(
  deps: FailureNoticeDeps,
  runId: string,
  reason: string,
  step?: Step,
): Promise<MarkFailedResult> {
  for (let attempt = 1; ; attempt++) {
    let run: Run;
    try {
      run = await getRun(deps.store, runId);
    } catch (error) {
      if (error instanceof NotFoundError) return { marked: false, run: null, why: 'missing' };
      throw error;
    }
    if (run.status === 'waiting') return { marked: false, run, why: 'waiting' };
    if (run.status !== 'running') return { marked: false, run, why: 'finished' };
    if (step !== undefined && run.dispatch !== null && run.dispatch.node !== step)
      return { marked: false, run, why: 'moved_on' };
    const failed: Run = {
      ...run,
      status: 'failed',
      dispatch: null,
      error: reason,
      snapshot: null,
      owner: null,
      finished_at: new Date().toISOString(),
    };
    try {
      const stored = await deps.store.update('runs', failed, run.version);
      await releaseHolds(deps.store, run); // the items it held are asked again by the next run
      await auditRunFinished(deps.store, run, `failed: ${reason}`);
      recordMetric('RunsFailed');
      deps.emit(run.id, 'failed', `Run failed: ${reason}`, {});
      await notifyRunFailed(deps, failed, reason);
      return { marked: true, run: { ...failed, version: stored.version } };
    } catch (error) {
      // Someone moved the run meanwhile: look again (it may have finished, or be failable still).
      if (!(error instanceof VersionConflictError) || attempt >= ATTEMPTS) throw error;
    }
  }
}

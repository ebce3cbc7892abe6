/**
 * The step-failed function: a function gave up on an event (retries exhausted, or the
 * event too old). A run step's failure marks the run failed with the reason; any other
 * failure (a schedule whose workflow is gone, a schedule sync) is logged as one line.
 */
import type { z } from 'zod';
import type { FailureNoticeDeps } from '../runs/failure-notice.ts';
import { log } from '../logging/log.ts';
import { failRun, type FailResult } from '../runs/lifecycle.ts';
import {
  DESTINATION_DETAIL_TYPE,
  FailureRecordSchema,
  parseEvent,
  ScheduleInputSchema,
  StepEventSchema,
} from './lambda-events.ts';
import type { Step } from '../runs/dispatch.ts';
import { scheduledRunId } from '../runs/run-repository.ts';

export interface FailureResult {
  run_id: string | null;
  marked: boolean;
  /** `failed`, or why not: not_a_run_step, missing, finished, waiting, moved_on. */
  why: 'failed' | 'not_a_run_step' | Exclude<FailResult, { marked: true }>['why'];
  reason: string;
}

/**
 * The step-failed function: a function gave up on an event (retries exhausted, or the
 * event too old). A run step's failure marks the run failed with the reason; any other
 * failure (a schedule whose workflow is gone, a schedule sync) is logged as one line.
 */
export async function recordStepFailure(deps: FailureNoticeDeps, event: unknown): Promise<FailureResult> {
  const raw =
    (event as { 'detail-type'?: unknown })?.['detail-type'] === DESTINATION_DETAIL_TYPE
      ? (event as { detail: unknown }).detail
      : event;
  const record = parseEvent(FailureRecordSchema, raw, 'a Lambda on-failure destination record');
  const reason = failureReason(record);
  const scheduled = ScheduleInputSchema.safeParse(record.requestPayload);
  if (scheduled.success && scheduled.data.scheduled_time) {
    // A scheduled run whose trigger gave up: its run (if it was created) is keyed on the firing.
    const runId = scheduledRunId(
      scheduled.data.workspace,
      scheduled.data.workflow_id,
      scheduled.data.scheduled_time,
    );
    return markFailed(deps, runId, reason);
  }
  const step = StepEventSchema.safeParse(record.requestPayload);
  if (!step.success) {
    log.error(`${reason}; event: ${JSON.stringify(record.requestPayload).slice(0, 2_000)}`);
    return { run_id: null, marked: false, why: 'not_a_run_step', reason };
  }
  const { run_id, node } = step.data.detail;
  return markFailed(deps, run_id, reason, node);
}

async function markFailed(
  deps: FailureNoticeDeps,
  runId: string,
  reason: string,
  step?: Step,
): Promise<FailureResult> {
  const result = await failRun(deps, runId, reason, { step });
  if (!result.marked) log.error(`run ${runId} left ${result.why}: ${reason}`, { run_id: runId });
  return { run_id: runId, marked: result.marked, why: result.marked ? 'failed' : result.why, reason };
}

function failureReason(record: z.infer<typeof FailureRecordSchema>): string {
  const ctx = record.requestContext ?? {};
  const fn = ctx.functionArn?.split(':')[6] ?? 'a function';
  const attempts = ctx.approximateInvokeCount;
  const error = record.responsePayload;
  const what = error?.errorMessage
    ? `${error.errorType ? `${error.errorType}: ` : ''}${error.errorMessage}`
    : (ctx.condition ?? 'no error message');
  const after = attempts ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : '';
  return `${fn} gave up${after}: ${what}`.replace(/\s+/g, ' ').slice(0, 1_000);
}

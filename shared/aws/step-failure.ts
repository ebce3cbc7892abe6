/**
 * The step-failed function: a function gave up on an event (retries exhausted, or the
 * event too old). A run step's failure marks the run failed with the reason, in the run's
 * own workspace; a schedule sync's is told to the person (the workflow's runs would not
 * start on time); anything else is logged as one line.
 */
import type { z } from 'zod';
import { notifyScheduleFailed, type FailureNoticeDeps } from '../runs/failure-notice.ts';
import { log } from '../logging/log.ts';
import { failRun, type FailResult } from '../runs/lifecycle.ts';
import {
  DESTINATION_DETAIL_TYPE,
  FailureRecordSchema,
  parseEvent,
  ScheduleInputSchema,
  StepEventSchema,
  WorkflowEventSchema,
} from './lambda-events.ts';
import type { Step } from '../runs/dispatch.ts';
import { scheduledRunId } from '../runs/run-repository.ts';

export interface FailureResult {
  run_id: string | null;
  marked: boolean;
  /**
   * `failed`; `schedule_failed` (a schedule sync gave up, and the person was told); or why
   * nothing was marked: not_a_run_step, missing, finished, waiting, moved_on.
   */
  why: 'failed' | 'schedule_failed' | 'not_a_run_step' | Exclude<FailResult, { marked: true }>['why'];
  reason: string;
}

/** What telling the person needs, in the workspace an event names. */
export type FailureDepsOf = (workspace: string) => FailureNoticeDeps;

/** Marks the run of a failed step failed (or tells of a failed schedule sync), in the event's workspace. */
export async function recordStepFailure(depsOf: FailureDepsOf, event: unknown): Promise<FailureResult> {
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
    return markFailed(depsOf(scheduled.data.workspace), runId, reason);
  }
  const change = WorkflowEventSchema.safeParse(record.requestPayload);
  if (change.success) {
    const { workflow_id, workspace } = change.data.detail;
    log.error(`the schedule of workflow ${workflow_id} (${workspace}) was not updated: ${reason}`);
    await notifyScheduleFailed(depsOf(workspace), workflow_id, reason);
    return { run_id: null, marked: false, why: 'schedule_failed', reason };
  }
  const step = StepEventSchema.safeParse(record.requestPayload);
  if (!step.success) {
    log.error(`${reason}; event: ${JSON.stringify(record.requestPayload).slice(0, 2_000)}`);
    return { run_id: null, marked: false, why: 'not_a_run_step', reason };
  }
  const { run_id, node, workspace } = step.data.detail;
  return markFailed(depsOf(workspace), run_id, reason, node);
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

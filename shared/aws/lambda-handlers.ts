/**
 * What each Lambda function does with its event: parse it (zod), call the engine, say
 * what happened. The files in lambdas/ only wire these to their clients.
 */
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { STEPS, type Step } from '../runs/dispatch.ts';
import { markRunFailed, type MarkFailedResult } from '../runs/fail-run.ts';
import { runStep } from '../runs/resume-run.ts';
import { summarise, type RunSummary } from '../runs/settle.ts';
import { startRun } from '../runs/start-run.ts';
import type { Store } from '../store/store.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { STEP_DETAIL_TYPE } from './eventbridge-dispatcher.ts';
import { syncSchedule, type ScheduleSyncOptions, type ScheduleSyncResult } from './schedule-sync.ts';
import { WORKFLOW_DETAIL_TYPE } from './workflow-events.ts';

const id = z.string().min(1).max(256);

export const ScheduleInputSchema = z.object({ workflow_id: id, schedule: z.string().min(1) });
export const StepEventSchema = z.object({
  'detail-type': z.literal(STEP_DETAIL_TYPE),
  detail: z.object({ run_id: id, node: z.enum(STEPS) }),
});
export const WorkflowEventSchema = z.object({
  'detail-type': z.literal(WORKFLOW_DETAIL_TYPE),
  detail: z.object({ workflow_id: id, change: z.enum(['saved', 'removed']) }),
});
/** A Lambda async invocation record (on-failure destination), as a function or inside an EventBridge event. */
export const FailureRecordSchema = z.object({
  requestContext: z
    .object({
      functionArn: z.string().optional(),
      condition: z.string().optional(),
      approximateInvokeCount: z.number().optional(),
    })
    .optional(),
  requestPayload: z.unknown(),
  responsePayload: z
    .object({ errorMessage: z.string().optional(), errorType: z.string().optional() })
    .nullish()
    .catch(null),
});
const DESTINATION_DETAIL_TYPE = 'Lambda Function Invocation Result - Failure';

/** Parses an event or throws one line saying what is wrong with it. */
export function parseEvent<S extends z.ZodType>(schema: S, event: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(event);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new InvalidInputError(`not ${what}: ${where}${issue?.message ?? 'invalid'}`);
}

/** The trigger function: a schedule fired; the run starts here and its first step is dispatched. */
export async function triggerScheduledRun(engine: EngineDeps, event: unknown): Promise<RunSummary> {
  const input = parseEvent(ScheduleInputSchema, event, 'a schedule input {workflow_id, schedule}');
  const run = await startRun(engine, input.workflow_id, { kind: 'schedule', detail: input.schedule });
  return summarise(run);
}

export type StepResult = RunSummary | { ignored: true; reason: string };

/**
 * A node's function: runs the step a `handoff.step` event names. A step meant for
 * another node is logged and ignored (a routing mistake must not fail the run); a
 * duplicate or late delivery finds the run moved on and changes nothing.
 */
export function stepHandler(engine: EngineDeps, own: Step): (event: unknown) => Promise<StepResult> {
  return async (event) => {
    const { detail } = parseEvent(StepEventSchema, event, 'a handoff.step event');
    if (detail.node !== own) {
      const reason = `the ${own} function got a ${detail.node} step for run ${detail.run_id}; check the EventBridge rule`;
      console.warn(`handoff: ${reason}`);
      return { ignored: true, reason };
    }
    return summarise(await runStep(engine, detail.run_id, own));
  };
}

/**
 * The schedule-sync function: a workflow was saved or removed. The store says what is
 * current (so events arriving out of order still end right), and the schedule follows.
 */
export async function syncWorkflowSchedule(
  store: Store,
  scheduler: SchedulerClient,
  opts: ScheduleSyncOptions,
  event: unknown,
): Promise<{ workflow_id: string; schedule: ScheduleSyncResult }> {
  const { detail } = parseEvent(WorkflowEventSchema, event, 'a handoff.workflow event');
  let workflow: Workflow | null = null;
  try {
    workflow = await getWorkflow(store, detail.workflow_id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  const schedule = await syncSchedule(scheduler, opts, workflow, detail.workflow_id);
  return { workflow_id: detail.workflow_id, schedule };
}

export interface FailureResult {
  run_id: string | null;
  marked: boolean;
  /** `failed`, or why not: not_a_run_step, missing, finished, waiting, moved_on. */
  why: 'failed' | 'not_a_run_step' | Exclude<MarkFailedResult, { marked: true }>['why'];
  reason: string;
}

/**
 * The step-failed function: a function gave up on an event (retries exhausted, or the
 * event too old). A run step's failure marks the run failed with the reason; any other
 * failure (a schedule whose workflow is gone, a schedule sync) is logged as one line.
 */
export async function recordStepFailure(
  deps: Pick<EngineDeps, 'store' | 'emit'>,
  event: unknown,
): Promise<FailureResult> {
  const raw =
    (event as { 'detail-type'?: unknown })?.['detail-type'] === DESTINATION_DETAIL_TYPE
      ? (event as { detail: unknown }).detail
      : event;
  const record = parseEvent(FailureRecordSchema, raw, 'a Lambda on-failure destination record');
  const reason = failureReason(record);
  const step = StepEventSchema.safeParse(record.requestPayload);
  if (!step.success) {
    console.error(`handoff: ${reason}; event: ${JSON.stringify(record.requestPayload).slice(0, 2_000)}`);
    return { run_id: null, marked: false, why: 'not_a_run_step', reason };
  }
  const { run_id, node } = step.data.detail;
  const result = await markRunFailed(deps, run_id, reason, node);
  if (!result.marked) console.error(`handoff: run ${run_id} left ${result.why}: ${reason}`);
  return { run_id, marked: result.marked, why: result.marked ? 'failed' : result.why, reason };
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

import { createHash } from 'node:crypto';
import {
  SchedulerClient,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { regionOption } from '../config/aws-region.ts';
import { NotFoundError, isError } from '../errors/index.ts';
import type { Store } from '../store/store.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { DEFAULT_TIME_ZONE, readProfile } from '../profile/profile.ts';
import type { Workflow } from '../workflows/schema.ts';
import { parseEvent, WorkflowEventSchema } from './lambda-events.ts';

/** Where a workflow's schedule goes and what it invokes. */
export interface ScheduleSyncOptions {
  groupName: string;
  /** The trigger function the schedule invokes. */
  targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke it. */
  roleArn: string;
}

/** What the trigger function receives from a schedule (the target's Input). */
export interface ScheduleInput {
  workflow_id: string;
  schedule: string;
  /** When it fired: Scheduler replaces SCHEDULED_TIME with it. Every delivery of one firing starts one run. */
  scheduled_time?: string;
}

/** The Scheduler context attribute replaced by the time the schedule fired, e.g. 2026-11-30T08:00:00Z. */
export const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

export type ScheduleSyncResult = 'created' | 'updated' | 'deleted' | 'absent';

const NAME_OK = /^[0-9a-zA-Z._-]{1,64}$/;

/** The schedule's name in the group: the workflow id (a slug fits), else a stable hash of it. */
export function scheduleNameFor(workflowId: string): string {
  if (NAME_OK.test(workflowId)) return workflowId;
  return `wf-${createHash('sha256').update(workflowId).digest('hex').slice(0, 32)}`;
}

/**
 * Makes EventBridge Scheduler match the workflow: one schedule per workflow with
 * `trigger.schedule` (created, or updated when it exists), none otherwise (deleted; a
 * schedule that is already gone is fine). The expression is the workflow's own
 * `cron(...)`/`rate(...)` string, read in `timeZone` (the profile's), fired on time (no
 * flexible window).
 */
export async function syncSchedule(
  client: SchedulerClient,
  opts: ScheduleSyncOptions,
  workflow: Workflow | null,
  workflowId: string,
  timeZone: string = DEFAULT_TIME_ZONE,
): Promise<ScheduleSyncResult> {
  const name = scheduleNameFor(workflowId);
  const expression = workflow?.trigger.schedule?.trim();
  if (!workflow || !expression) {
    try {
      await client.send(new DeleteScheduleCommand({ Name: name, GroupName: opts.groupName }));
      return 'deleted';
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return 'absent';
      throw error;
    }
  }
  const input: ScheduleInput = {
    workflow_id: workflow.id,
    schedule: expression,
    scheduled_time: SCHEDULED_TIME,
  };
  const request: CreateScheduleCommandInput = {
    Name: name,
    GroupName: opts.groupName,
    Description: `Handoff: ${workflow.name}`.slice(0, 512),
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: timeZone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: 'ENABLED',
    Target: { Arn: opts.targetArn, RoleArn: opts.roleArn, Input: JSON.stringify(input) },
  };
  try {
    await client.send(new CreateScheduleCommand(request));
    return 'created';
  } catch (error) {
    if (errorName(error) !== 'ConflictException') throw error;
  }
  await client.send(new UpdateScheduleCommand(request));
  return 'updated';
}

function errorName(error: unknown): string | undefined {
  return isError(error) ? error.name : undefined;
}

/**
 * The schedule-sync function: a workflow was saved or removed (or the profile's time zone
 * changed: each scheduled workflow is announced again). The store says what is current (so
 * events arriving out of order still end right), and the schedule follows, in the
 * profile's time zone.
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
  const { time_zone } = await readProfile(store);
  const schedule = await syncSchedule(scheduler, opts, workflow, detail.workflow_id, time_zone);
  return { workflow_id: detail.workflow_id, schedule };
}

let scheduler: SchedulerClient | undefined;

/** The container's EventBridge Scheduler client. */
export function schedulerClient(region: string | undefined): SchedulerClient {
  scheduler ??= new SchedulerClient(regionOption(region));
  return scheduler;
}

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
import type { Workflow } from '../workflows/schema.ts';
import { parseEvent, WorkflowEventSchema } from './lambda-events.ts';
import { readProfile } from '../profile/profile.ts';
import { isPaused } from '../schedules/schedules.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';
import { needs } from '../config/needs.ts';

needs('schedules'); // scheduler:* in SCHEDULE_GROUP_NAME, iam:PassRole on SCHEDULER_ROLE_ARN

/** How the schedule is kept besides the workflow: paused or not, and the profile's time zone. */
export interface ScheduleSettings {
  paused: boolean;
  timeZone: string;
}

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
  /** The workflow's workspace id (absent in schedules made before workspaces: `default`). */
  workspace?: string;
}

/** The Scheduler context attribute replaced by the time the schedule fired, e.g. 2026-11-30T08:00:00Z. */
export const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

export type ScheduleSyncResult = 'created' | 'updated' | 'deleted' | 'absent';

const NAME_OK = /^[0-9a-zA-Z._-]{1,64}$/;

/**
 * The schedule's name in the group: the workflow id (a slug fits), prefixed `<workspace>.`
 * outside the default workspace; else a stable hash of the two.
 */
export function scheduleNameFor(workflowId: string, workspace: string = DEFAULT_WORKSPACE): string {
  const name = workspace === DEFAULT_WORKSPACE ? workflowId : `${workspace}.${workflowId}`;
  if (NAME_OK.test(name)) return name;
  return `wf-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

/**
 * Makes EventBridge Scheduler match the workflow: one schedule per workflow with
 * `trigger.schedule` (created, or updated when it exists), none otherwise (deleted; a
 * schedule that is already gone is fine). The expression is the workflow's own
 * `cron(...)`/`rate(...)` string, read in the profile's time zone, fired on time (no
 * flexible window), and `State: DISABLED` while the schedule is paused.
 */
export async function syncSchedule(
  client: SchedulerClient,
  opts: ScheduleSyncOptions,
  workflow: Workflow | null,
  workflowId: string,
  settings: ScheduleSettings = { paused: false, timeZone: 'UTC' },
  workspace: string = DEFAULT_WORKSPACE,
): Promise<ScheduleSyncResult> {
  const name = scheduleNameFor(workflowId, workspace);
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
    workspace,
  };
  const request: CreateScheduleCommandInput = {
    Name: name,
    GroupName: opts.groupName,
    Description: `Handoff: ${workflow.name}`.slice(0, 512),
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: settings.timeZone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: settings.paused ? 'DISABLED' : 'ENABLED',
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
 * The schedule-sync function: a workflow was saved or removed, its schedule paused or
 * resumed, or the profile's time zone changed (each scheduled workflow is announced again).
 * The store says what is current (so events arriving out of order still end right), and the
 * schedule follows, in the profile's time zone.
 */
export async function syncWorkflowSchedule(
  storeOf: (workspace: string) => Store,
  scheduler: SchedulerClient,
  opts: ScheduleSyncOptions,
  event: unknown,
): Promise<{ workflow_id: string; schedule: ScheduleSyncResult }> {
  const { detail } = parseEvent(WorkflowEventSchema, event, 'a handoff.workflow event');
  const store = storeOf(detail.workspace);
  let workflow: Workflow | null = null;
  try {
    workflow = await getWorkflow(store, detail.workflow_id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  const settings: ScheduleSettings = {
    paused: workflow !== null && (await isPaused(store, workflow.id)),
    timeZone: (await readProfile(store)).time_zone,
  };
  const schedule = await syncSchedule(
    scheduler,
    opts,
    workflow,
    detail.workflow_id,
    settings,
    detail.workspace,
  );
  return { workflow_id: detail.workflow_id, schedule };
}

let scheduler: SchedulerClient | undefined;

/** The container's EventBridge Scheduler client. */
export function schedulerClient(region: string | undefined): SchedulerClient {
  scheduler ??= new SchedulerClient(regionOption(region));
  return scheduler;
}

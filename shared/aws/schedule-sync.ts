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
import { noteSynced } from '../schedules/synced.ts';
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

/** The variables the `schedules` binding sets (shared/aws/deployment.ts). */
export interface ScheduleTargetEnv {
  SCHEDULE_GROUP_NAME: string;
  TRIGGER_FUNCTION_ARN: string;
  SCHEDULER_ROLE_ARN: string;
}

/** Where the function's schedules go, from its `schedules` binding's variables. */
export function scheduleTargetOf(env: ScheduleTargetEnv): ScheduleSyncOptions {
  return {
    groupName: env.SCHEDULE_GROUP_NAME,
    targetArn: env.TRIGGER_FUNCTION_ARN,
    roleArn: env.SCHEDULER_ROLE_ARN,
  };
}

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
 * What EventBridge Scheduler should hold for the workflow: one schedule when it has
 * `trigger.schedule`, null otherwise. The expression is the workflow's own
 * `cron(...)`/`rate(...)` string, read in the profile's time zone, fired on time (no
 * flexible window), and `State: DISABLED` while the schedule is paused.
 */
export function scheduleRequest(
  opts: ScheduleSyncOptions,
  workflow: Workflow | null,
  workflowId: string,
  settings: ScheduleSettings = { paused: false, timeZone: 'UTC' },
  workspace: string = DEFAULT_WORKSPACE,
): CreateScheduleCommandInput | null {
  const expression = workflow?.trigger.schedule?.trim();
  if (!workflow || !expression) return null;
  const input: ScheduleInput = {
    workflow_id: workflow.id,
    schedule: expression,
    scheduled_time: SCHEDULED_TIME,
    workspace,
  };
  return {
    Name: scheduleNameFor(workflowId, workspace),
    GroupName: opts.groupName,
    Description: `Handoff: ${workflow.name}`.slice(0, 512),
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: settings.timeZone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: settings.paused ? 'DISABLED' : 'ENABLED',
    Target: { Arn: opts.targetArn, RoleArn: opts.roleArn, Input: JSON.stringify(input) },
  };
}

/** A short, stable digest of a schedule request (null: no schedule), to tell whether it changed. */
export function scheduleFingerprint(request: CreateScheduleCommandInput | null): string | null {
  if (request === null) return null;
  return createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 32);
}

/**
 * Makes EventBridge Scheduler match the workflow (scheduleRequest): its schedule created, or
 * updated when it exists; deleted when it should have none (a schedule that is already gone
 * is fine).
 */
export async function syncSchedule(
  client: SchedulerClient,
  opts: ScheduleSyncOptions,
  workflow: Workflow | null,
  workflowId: string,
  settings: ScheduleSettings = { paused: false, timeZone: 'UTC' },
  workspace: string = DEFAULT_WORKSPACE,
): Promise<ScheduleSyncResult> {
  const request = scheduleRequest(opts, workflow, workflowId, settings, workspace);
  return sendSchedule(client, opts, request, scheduleNameFor(workflowId, workspace));
}

/** `made`: the schedule was made before (noted), so it is updated first and created only when gone. */
async function sendSchedule(
  client: SchedulerClient,
  opts: ScheduleSyncOptions,
  request: CreateScheduleCommandInput | null,
  name: string,
  made = false,
): Promise<ScheduleSyncResult> {
  if (request === null) {
    try {
      await client.send(new DeleteScheduleCommand({ Name: name, GroupName: opts.groupName }));
      return 'deleted';
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return 'absent';
      throw error;
    }
  }
  if (made) {
    try {
      await client.send(new UpdateScheduleCommand(request));
      return 'updated';
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
    }
  }
  try {
    await client.send(new CreateScheduleCommand(request));
    return 'created';
  } catch (error) {
    if (errorName(error) !== 'ConflictException') throw error;
  }
  await client.send(new UpdateScheduleCommand(request));
  return 'updated';
}

/** What the store says the workflow's schedule should be: its pause and the profile's time zone. */
export async function scheduleSettingsOf(store: Store, workflow: Workflow | null): Promise<ScheduleSettings> {
  return {
    paused: workflow !== null && (await isPaused(store, workflow.id)),
    timeZone: (await readProfile(store)).time_zone,
  };
}

/**
 * syncSchedule, then notes what the schedule now is in the workspace's store (noteSynced), so
 * the sweeper's reconcileSchedules leaves it alone until the store says otherwise. `made`: a
 * schedule was noted before (it is updated first, created only when gone).
 */
export async function syncAndNote(
  client: SchedulerClient,
  opts: ScheduleSyncOptions,
  store: Store,
  workflow: Workflow | null,
  workflowId: string,
  settings: ScheduleSettings,
  workspace: string,
  made = false,
): Promise<ScheduleSyncResult> {
  const request = scheduleRequest(opts, workflow, workflowId, settings, workspace);
  const name = scheduleNameFor(workflowId, workspace);
  const result = await sendSchedule(client, opts, request, name, made);
  await noteSynced(store, workflowId, scheduleFingerprint(request));
  return result;
}

function errorName(error: unknown): string | undefined {
  return isError(error) ? error.name : undefined;
}

/**
 * The schedule-sync function: a workflow was saved or removed, its schedule paused or
 * resumed, or the profile's time zone changed (each scheduled workflow is announced again).
 * The store says what is current (so events arriving out of order still end right), and the
 * schedule follows, in the profile's time zone; what it now is is noted (syncAndNote).
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
  const schedule = await syncAndNote(
    scheduler,
    opts,
    store,
    workflow,
    detail.workflow_id,
    await scheduleSettingsOf(store, workflow),
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

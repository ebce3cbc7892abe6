/**
 * Schedules: every workflow with a `trigger.schedule`, its next firings in the profile's
 * time zone, and whether it is paused. Pausing is a record in the `schedules` collection
 * (id = workflow id), so the workflow itself is never edited: the local scheduler does not
 * fire a paused one, and on AWS its EventBridge Scheduler schedule is set DISABLED.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import type { Credentials } from '../credentials/credentials.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { credentialsNeeded } from '../workflows/credentials-needed.ts';
import { readProfile } from '../profile/profile.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { getWorkflow, listWorkflows } from '../workflows/repository.ts';
import { toCronExpression, type Workflow } from '../workflows/schema.ts';

/** How many firings a listing shows. */
export const NEXT_FIRINGS = 3;

export const ScheduleStateSchema = z.object({
  id: z.string(),
  version: z.number().int().optional(),
  schemaVersion: z.literal(1),
  workflow_id: z.string(),
  paused: z.boolean(),
  /** Paused because these credentials are not set (saved from a chat that lacked them). */
  needs: z.array(z.string()).optional(),
  updated_at: z.string(),
});
export type ScheduleState = z.infer<typeof ScheduleStateSchema>;

/** One firing: the instant (UTC) and how it reads in the time zone. */
export interface Firing {
  at: string;
  local: string;
}

/** A scheduled workflow as `handoff schedules --json` and `GET /api/schedules` show it. */
export interface ScheduleView {
  workflow_id: string;
  name: string;
  schedule: string;
  time_zone: string;
  paused: boolean;
  /** When it was last paused or resumed (null: never). */
  changed_at: string | null;
  /** Present when it is paused until these credentials are set (`handoff credentials set NAME`). */
  needs?: string[];
  /** The next firings, soonest first; none while paused (a paused schedule does not fire). */
  next: Firing[];
}

/** `2026-10-25 08:00 CET`: a firing as a person in `timeZone` reads it. */
export function localTime(at: Date, timeZone: string): string {
  const us = partsIn('en-US', at, timeZone);
  // en-US names American zones (EST), en-GB European ones (CET); elsewhere both say GMT+9.
  const parts = /^GMT[+-]/.test(us.zone) ? partsIn('en-GB', at, timeZone) : us;
  return `${parts.date} ${parts.zone}`;
}

function partsIn(locale: string, at: Date, timeZone: string): { date: string; zone: string } {
  const parts = new Intl.DateTimeFormat(locale, {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    date: `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`,
    zone: get('timeZoneName'),
  };
}

/**
 * The next `count` firings of an EventBridge schedule expression read in `timeZone`
 * (croner computes them, daylight-saving changes included), after `from`.
 */
export function nextFirings(schedule: string, timeZone: string, from: Date, count = NEXT_FIRINGS): Firing[] {
  const pattern = toCronExpression(schedule);
  if (pattern === null) return [];
  return new Cron(pattern, { timezone: timeZone, paused: true })
    .nextRuns(count, from)
    .map((at) => ({ at: at.toISOString(), local: localTime(at, timeZone) }));
}

/** The stored pause state of a workflow's schedule (undefined: never paused). */
export function getScheduleState(store: Store, workflowId: string): Promise<ScheduleState | undefined> {
  return getRecord(store, 'schedules', ScheduleStateSchema, workflowId);
}

/** Whether the workflow's schedule is paused. */
export async function isPaused(store: Store, workflowId: string): Promise<boolean> {
  return (await getScheduleState(store, workflowId))?.paused === true;
}

/** Every scheduled workflow with its state and next firings in the profile's time zone, by workflow id. */
export async function listSchedules(store: Store, now = new Date()): Promise<ScheduleView[]> {
  const [workflows, states, profile] = [
    await listWorkflows(store),
    await listRecords(store, 'schedules', ScheduleStateSchema),
    await readProfile(store),
  ];
  const byId = new Map(states.map((s) => [s.workflow_id, s]));
  return workflows
    .filter((w) => w.trigger.schedule !== undefined)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((w) => viewOf(w, byId.get(w.id), profile.time_zone, now));
}

function viewOf(w: Workflow, state: ScheduleState | undefined, timeZone: string, now: Date): ScheduleView {
  const schedule = w.trigger.schedule!.trim();
  const paused = state?.paused === true;
  return {
    workflow_id: w.id,
    name: w.name,
    schedule,
    time_zone: timeZone,
    paused,
    changed_at: state?.updated_at ?? null,
    ...(paused && state?.needs?.length ? { needs: state.needs } : {}),
    next: paused ? [] : nextFirings(schedule, timeZone, now),
  };
}

/**
 * Pauses a workflow until the credentials it `needs` are set: it neither fires on a schedule
 * nor starts from a chat, and its schedule and `doctor` say what it needs. Written before the
 * workflow is saved, so no scheduler ever sees it active. Any trigger kind may be paused so.
 */
export async function pauseUntilSet(
  store: Store,
  workflowId: string,
  needs: readonly string[],
  now = new Date(),
): Promise<void> {
  await store.put(
    'schedules',
    ScheduleStateSchema.parse({
      id: workflowId,
      schemaVersion: 1,
      workflow_id: workflowId,
      paused: true,
      needs: [...needs],
      updated_at: now.toISOString(),
    }),
  );
}

/** The credentials a paused workflow waits for (empty when it is not paused for them). */
export async function pausedFor(store: Store, workflowId: string): Promise<string[]> {
  const state = await getScheduleState(store, workflowId);
  return state?.paused === true ? (state.needs ?? []) : [];
}

/**
 * Pauses or resumes a workflow's schedule (the workflow is left as it is); saying the
 * same twice changes nothing. NotFoundError for an unknown workflow or one without a
 * schedule; given `credentials`, a resume is refused (InvalidInputError) while a credential
 * the workflow needs is not set. Returns the schedule as it now is.
 */
export async function setPaused(
  store: Store,
  workflowId: string,
  paused: boolean,
  now = new Date(),
  credentials?: Pick<Credentials, 'names'>,
): Promise<ScheduleView> {
  const workflow = await getWorkflow(store, workflowId); // NotFoundError names the fix
  if (workflow.trigger.schedule === undefined)
    throw new NotFoundError(
      `workflow "${workflowId}" has no schedule (trigger.schedule), so there is nothing to ${paused ? 'pause' : 'resume'}`,
    );
  if (!paused && credentials) {
    const have = await credentials.names();
    const missing = credentialsNeeded(workflow).filter((n) => !have.has(n));
    if (missing.length > 0)
      throw new InvalidInputError(
        `${workflowId} stays paused: it needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not set; run \`handoff credentials set ${missing[0]}\` first`,
      );
  }
  const current = await getScheduleState(store, workflowId);
  let state = current;
  if (current?.paused !== paused) {
    state = ScheduleStateSchema.parse({
      id: workflowId,
      schemaVersion: 1,
      workflow_id: workflowId,
      paused,
      updated_at: now.toISOString(),
    });
    await store.put('schedules', state); // last writer wins: a pause and a resume are whole states
  }
  return viewOf(workflow, state, (await readProfile(store)).time_zone, now);
}

/**
 * The usage of one workflow on one UTC day, in one record (`usage_days`), so `handoff usage`
 * reads a record per workflow and day instead of every run's 'usage' records.
 *
 * A roll-up holds a copy of each of the day's usage records (by usage id: its version and
 * sums), never a running sum: writing a copy twice (a retried batch, two writers racing) sets
 * the same entry, and the newer version of a usage record always wins, so nothing is counted
 * twice. The sink writes the copy with the usage record, in the same commit where it can
 * (store-sink.ts); a copy that loses a race is written again, conditional on the roll-up's
 * version.
 *
 * Usage recorded before roll-ups is folded in once by `handoff store migrate`
 * (`backfillUsageDays`, its marker `settings/migration:usage-days`); until then the report
 * reads every usage record, as before (and marks the step done itself when it finds every
 * one already in the roll-ups: a workspace that began with roll-ups).
 */
import { z } from 'zod';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { crashPoint } from '../config/processes.ts';
import { isStepDone, markStepDone } from '../settings/settings.ts';
import { stableId } from '../store/ids.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Collection, RecordRef, Store, Write } from '../store/store.ts';
import { costParts, USAGE, UsageRecordSchema, type UsageRecord } from './trace.ts';

export const USAGE_DAYS: Collection = 'usage_days';
/** The marker of the backfill step of `handoff store migrate` (in `settings`). */
export const USAGE_DAYS_MIGRATED_ID = 'migration:usage-days';
const TRIES = 16;

/** A usage record as its roll-up keeps it: `[version, input tokens, output tokens, known USD, unknown-cost calls, calls]`. */
const CopySchema = z.tuple([
  z.number().int(),
  z.number().int(),
  z.number().int(),
  z.number(),
  z.number().int(),
  z.number().int(),
]);
type Copy = z.infer<typeof CopySchema>;

export const UsageDaySchema = z.object({
  id: z.string(),
  version: z.number().int(),
  day: z.string(),
  workflow_id: z.string(),
  /** By usage record id. */
  usage: z.record(z.string(), CopySchema),
  /** It took no more copies (MAX_COPIES): the report reads the usage records instead. */
  full: z.boolean().optional(),
});
export type UsageDay = z.infer<typeof UsageDaySchema>;

/** The id of the roll-up of `workflowId` on `day`. */
export function usageDayId(day: string, workflowId: string): string {
  return stableId('uday', day, workflowId);
}

/** Where the roll-up of `workflowId` on `day` is, for a batched read. */
export function usageDayRef(day: string, workflowId: string): RecordRef {
  return { collection: USAGE_DAYS, id: usageDayId(day, workflowId) };
}

/** The roll-up of `workflowId` on `day`, or undefined when none was written. */
export function readUsageDay(store: Store, day: string, workflowId: string): Promise<UsageDay | undefined> {
  return getRecord(store, USAGE_DAYS, UsageDaySchema, usageDayId(day, workflowId));
}

function copyOf(u: UsageRecord): Copy {
  const { known, unknownCalls } = costParts(u);
  return [u.version, u.input_tokens, u.output_tokens, known, unknownCalls, u.calls];
}

/**
 * The most copies a roll-up holds: every batch of the day's runs rewrites it whole, so it stays
 * small (about 90 bytes a copy, some 45 KB at most). A workflow with more runs and models in
 * one day than this gets a `full` roll-up instead, and the report reads the usage records.
 */
export const MAX_COPIES = 500;

/**
 * The write that puts `copies` (usage records of one workflow and day, each at the version it
 * has, or will have once its own write lands) into the roll-up
 * `current`, or null when it holds each at that version or newer already, or is full. The
 * copy past MAX_COPIES marks it full (the copies it holds kept), and nothing is written after.
 */
export function usageDayWrite(current: UsageDay | undefined, copies: readonly UsageRecord[]): Write | null {
  if (current?.full === true) return null;
  const first = copies[0]!;
  const usage = { ...current?.usage };
  let changed = false;
  for (const u of copies) {
    if ((usage[u.id]?.[0] ?? 0) >= u.version) continue;
    usage[u.id] = copyOf(u);
    changed = true;
  }
  if (!changed) return null;
  const full = Object.keys(usage).length > MAX_COPIES;
  const record = {
    id: usageDayId(first.day, first.workflow_id),
    day: first.day,
    workflow_id: first.workflow_id,
    ...(full ? { usage: { ...current?.usage }, full } : { usage }),
  };
  return current
    ? { kind: 'update', collection: USAGE_DAYS, record, expectedVersion: current.version }
    : { kind: 'create', collection: USAGE_DAYS, record };
}

/** Puts `copies` (one workflow and day) into their roll-up, re-reading it after a lost race. */
export async function syncUsageDay(store: Store, copies: readonly UsageRecord[]): Promise<void> {
  if (copies.length === 0) return;
  const { day, workflow_id } = copies[0]!;
  for (let attempt = 1; ; attempt++) {
    const write = usageDayWrite(await readUsageDay(store, day, workflow_id), copies);
    if (write === null) return;
    try {
      if (write.kind === 'create') await store.create(USAGE_DAYS, write.record);
      else if (write.kind === 'update') await store.update(USAGE_DAYS, write.record, write.expectedVersion);
      return;
    } catch (error) {
      const raced = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!raced || attempt >= TRIES) throw error;
      // Runs of one workflow finishing batches at once all write its day's roll-up: spread out.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/** Usage records grouped by the roll-up they go into (one workflow and day). */
export function byRollUp(records: readonly UsageRecord[]): UsageRecord[][] {
  const groups = new Map<string, UsageRecord[]>();
  for (const u of records) {
    const id = usageDayId(u.day, u.workflow_id);
    const group = groups.get(id);
    if (group) group.push(u);
    else groups.set(id, [u]);
  }
  return [...groups.values()];
}

/** Whether the report may read roll-ups only (the backfill ran). */
export async function usageDaysComplete(store: Store): Promise<boolean> {
  return isStepDone(store, USAGE_DAYS_MIGRATED_ID);
}

/**
 * What the report sums: the roll-ups (one record per workflow and day) when they hold every
 * usage record (the backfill's marker is there, and none is full), else every usage record, as
 * listed. A workspace whose usage was all written with roll-ups (a new one) gets the marker
 * here, the first time it is read the older way: from then on, by key.
 */
export async function usageToSum(
  store: Store,
): Promise<{ rollUps: UsageDay[] } | { records: UsageRecord[] }> {
  if (await usageDaysComplete(store)) {
    const rollUps = await listUsageDays(store);
    if (!rollUps.some((r) => r.full === true)) return { rollUps };
    return { records: await listRecords(store, USAGE, UsageRecordSchema) };
  }
  const all = await listRecords(store, USAGE, UsageRecordSchema);
  const rollUps = await listUsageDays(store);
  const held = new Map<string, number>();
  for (const rollUp of rollUps)
    for (const [id, [version]] of Object.entries(rollUp.usage)) held.set(id, version);
  if (all.some((u) => (held.get(u.id) ?? 0) < u.version)) return { records: all };
  await markStepDone(store, USAGE_DAYS_MIGRATED_ID); // kept if another process marked it first
  return { rollUps };
}

/** Every roll-up: one record per workflow and day. */
export function listUsageDays(store: Store): Promise<UsageDay[]> {
  return listRecords(store, USAGE_DAYS, UsageDaySchema);
}

/** One usage record's sums, as the report adds them up. */
export interface UsageSums {
  input: number;
  output: number;
  known: number;
  unknownCalls: number;
  calls: number;
}

/** A roll-up's copies, as the report adds them up. */
export function copiesOf(rollUp: UsageDay): UsageSums[] {
  return Object.values(rollUp.usage).map(([, input, output, known, unknownCalls, calls]) => ({
    input,
    output,
    known,
    unknownCalls,
    calls,
  }));
}

/**
 * The usage-days step of `handoff store migrate`: puts every usage record into its roll-up
 * (a copy at a version the roll-up already holds is left: idempotent), one workflow and day
 * at a time, then writes its marker, last; killed in the middle it is simply run again.
 * Returns how many usage records it read (0 when already done).
 */
export async function backfillUsageDays(store: Store): Promise<{ already_done: boolean; usage: number }> {
  if (await usageDaysComplete(store)) return { already_done: true, usage: 0 };
  const all = await listRecords(store, USAGE, UsageRecordSchema);
  for (const copies of byRollUp(all)) {
    await syncUsageDay(store, copies);
    crashPoint('migrate:usage-day-written');
  }
  await markStepDone(store, USAGE_DAYS_MIGRATED_ID);
  return { already_done: false, usage: all.length };
}

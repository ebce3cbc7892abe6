/**
 * Running totals of finished runs, so `stats` reads one record instead of every run.
 *
 * One record (`settings/run-totals`) holds the all-time sums, the sums per month and per day
 * of the last eight days (by the day a run started, as `stats` counts), and the newest
 * finished runs folded into it (`folded`, at most FOLDED_KEPT, with their `finished_at`).
 * A run is folded once, when it finishes (completed, skipped or failed: its counts no longer
 * change): one conditional update of that one record, so a fold is all or nothing, and a
 * second fold of the same run finds it in `folded` and writes nothing.
 *
 * `since`: every finished run whose `finished_at` is after it is folded exactly when it is in
 * `folded` (the oldest entries leave the list, and `since` moves up to them), so a reader
 * that meets a newer finished run not in the list knows its fold was lost (a crash between
 * the run's write and the fold) and folds it.
 *
 * `complete`: every finished run of the workspace is in the sums. A workspace whose first
 * fold finds no other finished run is complete from the start; one with older runs becomes
 * complete when `handoff store migrate` has backfilled it (`backfillRunTotals`, its marker
 * `settings/migration:run-totals`). Until then `stats` reads every run, as before.
 */
import { z } from 'zod';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { crashPoint } from '../config/processes.ts';
import { RunCountsSchema, RunSchema, EMPTY_COUNTS, type Run, type RunCounts } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import { listNewest, type Store } from '../store/store.ts';
import { markStepDone, writeEngineRecord } from '../settings/settings.ts';

/** The record of the running totals (in `settings`). */
export const RUN_TOTALS_ID = 'run-totals';
/** The marker of the backfill step of `handoff store migrate` (in `settings`). */
export const RUN_TOTALS_MIGRATED_ID = 'migration:run-totals';
/**
 * How many folded runs the record names (see `since`). A lost fold is made up by `stats`,
 * which looks among the newest 100 runs (STATS_RUNS): a little more than that is all the list
 * needs, and every fold rewrites it (1,000 names made a 50 KB record, read by every `stats`
 * and written by every run's end, so it cost more at 100,000 settled items than at 1,000).
 */
export const FOLDED_KEPT = 128;
/** How many days of per-day sums the record keeps (`stats` needs seven). */
const DAYS_KEPT = 8;
const TRIES = 8;

export const TotalSchema = RunCountsSchema.extend({ runs: z.number().int() });
export type Total = z.infer<typeof TotalSchema>;

export const RunTotalsSchema = z.object({
  id: z.literal(RUN_TOTALS_ID),
  version: z.number().int(),
  complete: z.boolean(),
  overall: TotalSchema,
  /** By UTC month of the run's start, `YYYY-MM`. */
  months: z.record(z.string(), TotalSchema),
  /** By UTC day of the run's start, `YYYY-MM-DD`: the last DAYS_KEPT days only. */
  days: z.record(z.string(), TotalSchema),
  /** The newest folded runs, `[run id, finished_at]`, newest finish last. */
  folded: z.array(z.tuple([z.string(), z.string()])),
  /** Finished runs after this time are folded exactly when named in `folded` ('' = since always). */
  since: z.string(),
});
export type RunTotals = z.infer<typeof RunTotalsSchema>;

export const EMPTY_TOTAL: Total = { runs: 0, ...EMPTY_COUNTS };

const FINISHED = new Set<Run['status']>(['completed', 'skipped', 'failed']);

/** Whether the run's counts are final (it will not change again): the runs that are folded. */
export function isFinished(run: Pick<Run, 'status'>): boolean {
  return FINISHED.has(run.status);
}

/** When the run finished, for `folded` (its start for a record without a finish time). */
function finishedAt(run: Run): string {
  return run.finished_at ?? run.started_at;
}

/** `a` plus one run's counts (or another total). */
export function plus(a: Total, counts: RunCounts | Total, runs = 1): Total {
  const out = { ...a, runs: a.runs + ('runs' in counts ? counts.runs : runs) };
  for (const key of Object.keys(EMPTY_COUNTS) as (keyof RunCounts)[]) out[key] = a[key] + counts[key];
  return out;
}

/** The totals record, or undefined when no run was folded yet. */
export async function readRunTotals(store: Store): Promise<RunTotals | undefined> {
  const raw = await store.get('settings', RUN_TOTALS_ID);
  return raw === undefined ? undefined : parseRecord(RunTotalsSchema, 'settings', raw);
}

/** Whether `run` is in `totals` (or folded before `since`). */
export function isFolded(totals: RunTotals, run: Run): boolean {
  if (totals.since !== '' && finishedAt(run) <= totals.since) return true;
  return totals.folded.some(([id]) => id === run.id);
}

/** `totals` with `run` added (days older than DAYS_KEPT before `now` dropped, `folded` trimmed). */
export function withRun(totals: Omit<RunTotals, 'version'>, run: Run, now: Date): Omit<RunTotals, 'version'> {
  const day = run.started_at.slice(0, 10);
  const month = run.started_at.slice(0, 7);
  const oldestDay = new Date(now.getTime() - DAYS_KEPT * 86_400_000).toISOString().slice(0, 10);
  const days: Record<string, Total> = {};
  for (const [d, total] of Object.entries(totals.days)) if (d >= oldestDay) days[d] = total;
  if (day >= oldestDay) days[day] = plus(days[day] ?? EMPTY_TOTAL, run.counts);
  const folded = [...totals.folded, [run.id, finishedAt(run)] as [string, string]].sort((a, b) =>
    a[1].localeCompare(b[1]),
  );
  let since = totals.since;
  while (folded.length > FOLDED_KEPT) {
    const dropped = folded.shift()!;
    if (dropped[1] > since) since = dropped[1];
  }
  return {
    ...totals,
    overall: plus(totals.overall, run.counts),
    months: { ...totals.months, [month]: plus(totals.months[month] ?? EMPTY_TOTAL, run.counts) },
    days,
    folded,
    since,
  };
}

/**
 * Folds a finished run into the totals, once: a run already folded writes nothing. Called
 * when a run finishes; `stats` calls it for a newer run whose fold was lost.
 */
export async function foldRun(store: Store, run: Run, now = new Date()): Promise<void> {
  if (!isFinished(run)) return;
  for (let attempt = 1; ; attempt++) {
    const current = await readRunTotals(store);
    if (current && isFolded(current, run)) return;
    try {
      if (current) {
        const { version, ...rest } = current;
        await writeEngineRecord(store, { ...withRun(rest, run, now), id: RUN_TOTALS_ID }, version);
      } else {
        const fresh = { ...emptyTotals(), complete: await onlyFinishedRun(store, run) };
        await writeEngineRecord(store, { ...withRun(fresh, run, now), id: RUN_TOTALS_ID });
      }
      return;
    } catch (error) {
      const raced = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!raced || attempt >= TRIES) throw error;
    }
  }
}

function emptyTotals(): Omit<RunTotals, 'version'> {
  return {
    id: RUN_TOTALS_ID,
    complete: false,
    overall: EMPTY_TOTAL,
    months: {},
    days: {},
    folded: [],
    since: '',
  };
}

/**
 * Whether `run` is the workspace's only finished run (a new workspace: its totals are complete
 * from the first fold). Reads a page of the newest runs; a workspace with more than a page of
 * runs is left for the migration.
 */
async function onlyFinishedRun(store: Store, run: Run): Promise<boolean> {
  const page = await listNewest(store, 'runs', { limit: 100 });
  if (page.next_cursor !== null) return false;
  return page.items
    .map((r) => parseRecord(RunSchema, 'runs', r))
    .every((r) => r.id === run.id || !isFinished(r));
}

/** What the backfill step did. */
export interface RunTotalsReport {
  already_done: boolean;
  /** Finished runs summed into the totals. */
  runs: number;
}

/**
 * The run-totals step of `handoff store migrate`: sums every finished run of the workspace into
 * the totals record in one conditional write (a fold landing meanwhile moves its version: the
 * step sums again), then writes its marker. Idempotent: the sums are made afresh from the runs
 * each time, so a step killed before its marker, run again, writes the same record.
 */
export async function backfillRunTotals(store: Store, now = new Date()): Promise<RunTotalsReport> {
  if ((await store.get('settings', RUN_TOTALS_MIGRATED_ID)) !== undefined)
    return { already_done: true, runs: 0 };
  for (let attempt = 1; ; attempt++) {
    const current = await readRunTotals(store);
    const finished = (await store.list('runs'))
      .map((r) => parseRecord(RunSchema, 'runs', r))
      .filter(isFinished)
      .sort((a, b) => finishedAt(a).localeCompare(finishedAt(b)));
    let totals = emptyTotals();
    for (const run of finished) totals = withRun(totals, run, now);
    const record = { ...totals, complete: true, id: RUN_TOTALS_ID };
    try {
      if (current) await writeEngineRecord(store, record, current.version);
      else await writeEngineRecord(store, record);
      crashPoint('migrate:totals-written');
      await markStepDone(store, RUN_TOTALS_MIGRATED_ID);
      return { already_done: false, runs: finished.length };
    } catch (error) {
      const raced = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!raced || attempt >= TRIES) throw error;
    }
  }
}

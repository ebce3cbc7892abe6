/**
 * `stats` from the running totals (run-totals.ts): the totals record, the runs still moving
 * (the status index) and the newest runs (one page of the by-time index), whatever the
 * history. A workspace whose totals are not complete yet (before `handoff store migrate`)
 * is read the older way, every run.
 */
import type { Run } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import { latestRuns, listRuns, runsWithStatus } from './run-repository.ts';
import {
  EMPTY_TOTAL,
  foldRun,
  isFinished,
  isFolded,
  plus,
  readRunTotals,
  type RunTotals,
  type Total,
} from './run-totals.ts';
import { countsOf } from './counts.ts';
import { statsOf, tallyOf, weekStart, type Stats, type Tally } from './stats.ts';

/** How many of the newest runs `stats` lists. */
export const STATS_RUNS = 100;

/** `Stats`, and where the runs it lists stop (the runs page's cursor; null: it lists every run). */
export type StatsRead = Stats & { runs_next_cursor: string | null };

/** The workspace's stats (see the file's comment). */
export async function readStats(store: Store, now = new Date()): Promise<StatsRead> {
  let totals = await readRunTotals(store);
  if (!totals?.complete) return { ...statsOf(await listRuns(store), now), runs_next_cursor: null };
  const [page, running, waiting] = await Promise.all([
    latestRuns(store, STATS_RUNS),
    runsWithStatus(store, 'running'),
    runsWithStatus(store, 'waiting'),
  ]);
  const lost = page.runs.filter((r) => isFinished(r) && !isFolded(totals!, r));
  for (const run of lost) await foldRun(store, run, now);
  if (lost.length > 0) totals = (await readRunTotals(store)) ?? totals;
  const moving = movingRuns([...running, ...waiting], totals);
  const listed = statsOf(page.runs, now);
  const overall = moving.reduce((t, r) => plus(t, r.counts), totals.overall);
  const { today, this_week } = periods(totals, moving, now);
  return {
    overall: totalTally(overall),
    today: totalTally(today),
    this_week: totalTally(this_week),
    counts: { today: countsOf(today), this_week: countsOf(this_week), overall: countsOf(overall) },
    runs: listed.runs,
    runs_next_cursor: page.next_cursor,
  };
}

/** The moving runs, each once, without one the index still lists though it was folded. */
function movingRuns(runs: readonly Run[], totals: RunTotals): Run[] {
  const seen = new Set<string>();
  return runs.filter((r) => {
    if (seen.has(r.id) || isFolded(totals, r)) return false;
    seen.add(r.id);
    return true;
  });
}

function periods(totals: RunTotals, moving: readonly Run[], now: Date): { today: Total; this_week: Total } {
  const day = new Date(now);
  day.setUTCHours(0, 0, 0, 0);
  const today = day.toISOString();
  const week = weekStart(now);
  const sumDays = (from: string) =>
    Object.entries(totals.days)
      .filter(([d]) => d >= from.slice(0, 10))
      .reduce((t, [, total]) => plus(t, total), EMPTY_TOTAL);
  const add = (base: Total, from: string) =>
    moving.filter((r) => r.started_at >= from).reduce((t, r) => plus(t, r.counts), base);
  return {
    today: add(sumDays(today), today),
    this_week: add(sumDays(week), week),
  };
}

function totalTally(total: Total): Tally {
  return { runs: total.runs, ...tallyOf(total) };
}

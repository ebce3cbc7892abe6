import type { Run, RunCounts } from '../records/runs.ts';
import { countsOf, countsOfRuns, type Counts } from './counts.ts';

/**
 * The raw tallies `handoff stats --json` has always printed (kept for scripts); what a person
 * reads is `counts` (runs/counts.ts), the numbers every other surface shows.
 */
export interface Tally {
  runs: number;
  handled_alone: number;
  by_your_rules: number;
  by_learned_rules: number;
  /** Acted on a person's answer. */
  by_you: number;
  asked: number;
  declined: number;
  acted: number;
  failed: number;
}

export interface Stats {
  overall: Tally;
  today: Tally;
  this_week: Tally;
  /** The counts every surface shows (runs/counts.ts), today, this week and overall. */
  counts: { today: Counts; this_week: Counts; overall: Counts };
  runs: ({
    run_id: string;
    workflow_id: string;
    status: string;
    started_at: string;
    counts: Counts;
  } & Omit<Tally, 'runs'>)[];
}

/** A run's (or a total's) counts in the Tally's words, without the run count. */
export function tallyOf(counts: RunCounts): Omit<Tally, 'runs'> {
  return {
    handled_alone: counts.confident,
    by_your_rules: counts.by_your_rules,
    by_learned_rules: counts.by_learned_rules,
    by_you: counts.by_you,
    asked: counts.deferred,
    declined: counts.declined,
    acted: counts.acted,
    failed: counts.failed,
  };
}

function sum(runs: Run[]): Tally {
  const total: Tally = {
    runs: 0,
    handled_alone: 0,
    by_your_rules: 0,
    by_learned_rules: 0,
    by_you: 0,
    asked: 0,
    declined: 0,
    acted: 0,
    failed: 0,
  };
  for (const run of runs) {
    total.runs += 1;
    for (const [key, value] of Object.entries(tallyOf(run.counts)))
      total[key as keyof Omit<Tally, 'runs'>] += value;
  }
  return total;
}

/** Per run, today, the last seven days and overall; newest runs first. */
export function statsOf(runs: Run[], now = new Date()): Stats {
  const periods = periodsOf(runs, now);
  return {
    overall: sum(runs),
    today: sum(periods.today),
    this_week: sum(periods.this_week),
    counts: {
      today: countsOfRuns(periods.today),
      this_week: countsOfRuns(periods.this_week),
      overall: countsOfRuns(runs),
    },
    runs: runs.map((r) => ({
      run_id: r.id,
      workflow_id: r.workflow_id,
      status: r.status,
      started_at: r.started_at,
      ...tallyOf(r.counts),
      counts: countsOf(r.counts),
    })),
  };
}

/** The runs started today and in the last seven days (UTC days, today included). */
export function periodsOf(runs: Run[], now = new Date()): { today: Run[]; this_week: Run[] } {
  const day = new Date(now);
  day.setUTCHours(0, 0, 0, 0);
  const week = weekStart(now);
  return {
    today: runs.filter((r) => r.started_at >= day.toISOString()),
    this_week: runs.filter((r) => r.started_at >= week),
  };
}

/** Where "this week" begins: midnight UTC six days before `now`'s day. */
export function weekStart(now: Date): string {
  const day = new Date(now);
  day.setUTCHours(0, 0, 0, 0);
  return new Date(day.getTime() - 6 * 86_400_000).toISOString();
}

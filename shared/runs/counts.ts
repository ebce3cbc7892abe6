/**
 * What runs did, counted one way for every surface: the Overview's tiles, `handoff stats`,
 * a run's API JSON, its page and the notices all read {@link countsOf} (one run) or
 * {@link countsOfRuns} (several), and say it with {@link describeCounts}.
 *
 * Every item acted on has exactly one decider: `acted = confident + by_rules + by_you`,
 * and `by_rules = by_your_rules + by_learned_rules`. An item left alone had nothing done to
 * it: skipped by the model or a person, expired, or skipped by a rule
 * (`left_alone_by_rules`, part of `left_alone`). `asked` counts the items set aside for a
 * person; once answered they are also in `by_you`, `left_alone` or `failed`.
 */
import type { Run, RunCounts } from '../records/runs.ts';

export interface Counts {
  acted: number;
  /** Acted on by the model alone, above the threshold. */
  confident: number;
  /** Acted on by a rule (yours or learned). */
  by_rules: number;
  by_your_rules: number;
  by_learned_rules: number;
  /** Acted on a person's answer. */
  by_you: number;
  /** Set aside for a person. */
  asked: number;
  /** Nothing done: skipped (by the model, a person or a rule) or expired. */
  left_alone: number;
  /** Of `left_alone`: what a rule decided to leave alone. */
  left_alone_by_rules: number;
  failed: number;
}

export const NO_COUNTS: Counts = {
  acted: 0,
  confident: 0,
  by_rules: 0,
  by_your_rules: 0,
  by_learned_rules: 0,
  by_you: 0,
  asked: 0,
  left_alone: 0,
  left_alone_by_rules: 0,
  failed: 0,
};

/** Every count's name, in the order the surfaces show them. */
export const COUNT_KEYS = Object.keys(NO_COUNTS) as (keyof Counts)[];

/**
 * One run's counts as a person reads them. What neither the model alone nor a person acted
 * on was acted on by a rule; what a rule decided and did not act on, it left alone.
 */
export function countsOf(counts: RunCounts): Counts {
  const ruled = counts.by_your_rules + counts.by_learned_rules;
  const byRules = Math.min(ruled, Math.max(0, counts.acted - counts.confident - counts.by_you));
  const yours = Math.min(counts.by_your_rules, byRules);
  const leftByRules = ruled - byRules;
  return {
    acted: counts.acted,
    confident: counts.confident,
    by_rules: byRules,
    by_your_rules: yours,
    by_learned_rules: byRules - yours,
    by_you: counts.by_you,
    asked: counts.deferred,
    left_alone: counts.declined + leftByRules,
    left_alone_by_rules: leftByRules,
    failed: counts.failed,
  };
}

/** Several runs' counts: each run counted as above, then added (so the parts still add up). */
export function countsOfRuns(runs: readonly { counts: RunCounts }[]): Counts {
  const total = { ...NO_COUNTS };
  for (const run of runs) {
    const counts = countsOf(run.counts);
    for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += counts[key];
  }
  return total;
}

/**
 * The one sentence about what was done, wherever counts are shown to a person. The parts in
 * brackets add up to `acted`: `10 acted (7 confident, 0 by rules, 3 by you), 6 asked,
 * 3 left alone`; rules split into `by your rules` and `by learned rules` when any acted,
 * and what rules left alone is said in brackets: `4 left alone (1 by rules)`.
 */
export function describeCounts(counts: RunCounts | Counts): string {
  const c = 'deferred' in counts ? countsOf(counts) : counts;
  const rules = [
    c.by_your_rules > 0 ? `${c.by_your_rules} by your rules` : null,
    c.by_learned_rules > 0 ? `${c.by_learned_rules} by learned rules` : null,
  ].filter((part): part is string => part !== null);
  const deciders = [
    `${c.confident} confident`,
    ...(rules.length ? rules : ['0 by rules']),
    `${c.by_you} by you`,
  ];
  const leftByRules = c.left_alone_by_rules ? ` (${c.left_alone_by_rules} by rules)` : '';
  return `${c.acted} acted (${deciders.join(', ')}), ${c.asked} asked, ${c.left_alone} left alone${leftByRules}${
    c.failed ? `, ${c.failed} failed` : ''
  }`;
}

/**
 * What one run did, in words: its counts, or for a skipped run why it had nothing to do
 * ("no new mail since 08:00 UTC"), as the run page and the Overview say it.
 */
export function describeOutcome(run: Pick<Run, 'status' | 'counts' | 'skip_reason'>): string {
  return run.status === 'skipped' && run.skip_reason ? run.skip_reason : describeCounts(run.counts);
}

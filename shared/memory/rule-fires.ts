/**
 * How often each rule fired (decided an item) and when last, one small record per rule
 * (`rule_fires/<rule id>`), apart from the rule so the rule's key and copies are never
 * rewritten for it.
 *
 * A run tallies its rule hits in its ledger (run-state/run-ledger.ts) and folds them in when
 * an executor step of it ends: one batched read of the records of the rules that fired, one
 * write per rule whose tally grew. The tally is the run's whole so far, and each record names
 * the last runs folded into it with the count each brought, so folding the same run again (a
 * later step, a retried one) adds only what is new.
 */
import { z } from 'zod';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import { commitAll, getAll, type Store, type Write } from '../store/store.ts';

/** How many runs a record names (a run folds again only while it is among the last few). */
const RUNS_KEPT = 20;
const TRIES = 8;

export const RuleFiresSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  fired: z.number().int().min(0),
  last_fired_at: z.string().nullable(),
  /** The last runs folded in, `[run id, firings it brought]`, newest last. */
  runs: z.array(z.tuple([z.string(), z.number().int()])),
});
export type RuleFiresRecord = z.infer<typeof RuleFiresSchema>;

/** How often a rule fired and when last. */
export interface RuleFires {
  fired: number;
  last_fired_at: string | null;
}

export const NEVER_FIRED: RuleFires = { fired: 0, last_fired_at: null };

/** One run's hits so far: per rule id, how many items it decided and when last. */
export type RuleHits = Record<string, { n: number; last: string }>;

/** The firings of `ruleIds` (one batched read), by id; a rule never fired is absent. */
export async function firesOf(store: Store, ruleIds: readonly string[]): Promise<Map<string, RuleFires>> {
  const records = await getAll(store, 'rule_fires', ruleIds);
  const out = new Map<string, RuleFires>();
  for (const raw of records) {
    if (!raw) continue;
    const record = parseRecord(RuleFiresSchema, 'rule_fires', raw);
    out.set(record.id, { fired: record.fired, last_fired_at: record.last_fired_at });
  }
  return out;
}

/** The record after folding in `runId`'s `hit`; null when it brings nothing new. */
function folded(
  before: RuleFiresRecord | null,
  ruleId: string,
  runId: string,
  hit: { n: number; last: string },
): Omit<RuleFiresRecord, 'version'> | null {
  const runs = before?.runs ?? [];
  const already = runs.find(([id]) => id === runId)?.[1] ?? 0;
  if (hit.n <= already) return null;
  const last = before?.last_fired_at && before.last_fired_at > hit.last ? before.last_fired_at : hit.last;
  return {
    id: ruleId,
    fired: (before?.fired ?? 0) + (hit.n - already),
    last_fired_at: last,
    runs: [...runs.filter(([id]) => id !== runId), [runId, hit.n] as [string, number]].slice(-RUNS_KEPT),
  };
}

/**
 * Folds a run's rule hits (its tally so far) into the rules' records: one batched read, then
 * one conditional write per rule whose count grew, read again and retried where another run
 * moved a record meanwhile.
 */
export async function foldRuleHits(store: Store, runId: string, hits: RuleHits): Promise<void> {
  let pending = Object.keys(hits);
  for (let attempt = 1; pending.length > 0; attempt++) {
    const stored = await getAll(store, 'rule_fires', pending);
    const writes: Write[] = [];
    for (const [i, ruleId] of pending.entries()) {
      const before = stored[i] ? parseRecord(RuleFiresSchema, 'rule_fires', stored[i]) : null;
      const record = folded(before, ruleId, runId, hits[ruleId]!);
      if (!record) continue;
      writes.push(
        before
          ? { kind: 'update', collection: 'rule_fires', record, expectedVersion: before.version }
          : { kind: 'create', collection: 'rule_fires', record },
      );
    }
    const results = await commitAll(store, writes);
    const lost = results.flatMap((r, i) => (r.ok ? [] : [{ id: writes[i]!.record.id, error: r.error }]));
    for (const { error } of lost)
      if (!(error instanceof VersionConflictError || error instanceof RecordExistsError) || attempt >= TRIES)
        throw error;
    pending = lost.map((l) => l.id);
  }
}

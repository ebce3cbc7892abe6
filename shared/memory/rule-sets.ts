/**
 * The live rules of one scope — a workflow, or EVERY_WORKFLOW for the rules of every
 * workflow — copied onto one record (`rule_sets`), so an answer reads what the learner and a
 * domain proposal need with its batched read instead of listing every rule. The rule records
 * stay the truth (listing, `handoff rules`, recall read them): a copy is rebuilt from them
 * when it is missing or marked stale. The learner updates its scope's copy in the commit of
 * the rules it writes; every other writer of a rule marks the scope's copy stale after it
 * (`invalidateRuleSet`), a conditional write, so a rebuild that listed before it cannot land.
 */
import { z } from 'zod';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { isLive, RuleSchema, type Rule } from '../records/rule.ts';
import { listRecords, parseRecord } from '../store/records.ts';
import { commitAll, getEach, type RecordRef, type Store, type Write } from '../store/store.ts';

/** The scope of the rules that apply to every workflow (`workflow_id: null`). */
export const EVERY_WORKFLOW = '*';

/**
 * Past this many live rules a scope keeps no copy: it is listed instead (a copy is rewritten with
 * each rule learned, and its record would grow towards the item cap).
 */
export const MAX_KEPT_RULES = 100;
const INVALIDATE_TRIES = 8;

export const RuleSetSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  /** The scope's live rules, oldest first; null when stale (rebuilt from the rule records). */
  rules: z.array(RuleSchema).nullable(),
});

/** One scope's live rules, and the stored copy they came from or went to (null: none fresh). */
export interface ScopeRules {
  scope: string;
  rules: Rule[];
  version: number | null;
}

const scopeOf = (workflowId: string | null) => workflowId ?? EVERY_WORKFLOW;

/** The copies a workflow's rules are read from (its own, then every workflow's): read them with an answer. */
export function ruleSetRefs(workflowId: string): RecordRef[] {
  return [
    { collection: 'rule_sets', id: workflowId },
    { collection: 'rule_sets', id: EVERY_WORKFLOW },
  ];
}

/** The live rules of a scope among `rules`, oldest first. */
function liveIn(rules: readonly Rule[], scope: string): Rule[] {
  return rules.filter((r) => isLive(r) && scopeOf(r.workflow_id) === scope);
}

/**
 * The live rules of a workflow's scope and of every workflow's, from their copies (one
 * batched read, none in an answer that read them already); a copy missing or stale is
 * rebuilt from one listing of the rules, and stored again where no other writer moved it.
 */
export async function readRuleSets(
  store: Store,
  workflowId: string,
): Promise<{ own: ScopeRules; every: ScopeRules }> {
  const refs = ruleSetRefs(workflowId);
  const stored = (await getEach(store, refs)).map((r) => r && parseRecord(RuleSetSchema, 'rule_sets', r));
  const fresh = stored.map((set, i): ScopeRules | null =>
    set?.rules ? { scope: refs[i]!.id, rules: set.rules, version: set.version } : null,
  );
  if (fresh[0] && fresh[1]) return { own: fresh[0], every: fresh[1] };
  const listed = (await listRecords(store, 'rules', RuleSchema)).sort((a, b) =>
    a.created_at.localeCompare(b.created_at),
  );
  const rebuilt = refs.map(
    (ref, i) => fresh[i] ?? { scope: ref.id, rules: liveIn(listed, ref.id), version: null },
  );
  const writes = rebuilt.flatMap((set, i): Write[] => {
    if (fresh[i] || set.rules.length > MAX_KEPT_RULES) return [];
    const before = stored[i];
    const record = { id: set.scope, rules: set.rules };
    return [
      before
        ? { kind: 'update', collection: 'rule_sets', record, expectedVersion: before.version }
        : { kind: 'create', collection: 'rule_sets', record },
    ];
  });
  const results = await commitAll(store, writes);
  for (const [i, result] of results.entries()) {
    const set = rebuilt.find((s) => s.scope === writes[i]!.record.id)!;
    if (result.ok) set.version = Number(result.record.version);
  }
  return { own: rebuilt[0]!, every: rebuilt[1]! };
}

/** The live rules that may fire for a workflow (its own and every workflow's), oldest first, from their copies. */
export async function liveRulesOf(store: Store, workflowId: string): Promise<Rule[]> {
  const { own, every } = await readRuleSets(store, workflowId);
  return [...own.rules, ...every.rules].sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/**
 * The write that stores a scope's live rules after a change, to go in the commit of the rule
 * writes that made it; none when the copy was not fresh (it stays as it is: stale, or
 * rebuilt by the next reader) or would grow past MAX_KEPT_RULES (then it is marked stale).
 */
export function ruleSetWrite(set: ScopeRules, rules: readonly Rule[]): Write[] {
  if (set.version === null) return [];
  const kept = rules.length > MAX_KEPT_RULES ? null : [...rules];
  return [
    {
      kind: 'update',
      collection: 'rule_sets',
      record: { id: set.scope, rules: kept },
      expectedVersion: set.version,
    },
  ];
}

/**
 * Marks the copy of a rule's scope stale after the rule was written outside the learner
 * (added, revoked, imported): the next reader rebuilds it from the rule records. Conditional,
 * so a rebuild that listed the rules before this change fails to store its copy.
 */
export async function invalidateRuleSet(store: Store, workflowId: string | null): Promise<void> {
  const id = scopeOf(workflowId);
  for (let attempt = 0; attempt < INVALIDATE_TRIES; attempt++) {
    const current = await store.get('rule_sets', id);
    try {
      if (current) await store.update('rule_sets', { id, rules: null }, Number(current.version));
      else await store.create('rule_sets', { id, rules: null });
      return;
    } catch (error) {
      if (!(error instanceof VersionConflictError || error instanceof RecordExistsError)) throw error;
    }
  }
  throw new Error(`could not mark the rules of ${id} for a new read after ${INVALIDATE_TRIES} tries`);
}

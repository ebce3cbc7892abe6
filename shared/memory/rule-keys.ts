/**
 * The live rules indexed by what they match (`rule_keys`), so a run reads only the rules that
 * can fire on its items: one record per scope and match key, `<scope>|s|<sender address>`,
 * `<scope>|d|<domain>`, and `<scope>|k` for the keyword rules (they cannot be keyed: read as
 * one small set). The scope is a workflow id (its own rules), `src:<source key>` (the rules of
 * every workflow reading that source, memory/source-key.ts), or `*` for the rules of every
 * workflow. A page of items reads the keys of its senders and domains, in the three scopes,
 * in one batched read.
 *
 * The rule records stay the truth (listing, `handoff rules`, history). Every writer of a rule
 * updates its key's record (the learner in the commit of the rule); a rule written by an
 * earlier build is in no key until `handoff store migrate` indexes them all and sets the
 * marker (`settings/migration:rule-keys`). Until then a run lists the rules as before.
 */
import { z } from 'zod';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { isLive, RuleSchema, type Rule } from '../records/rule.ts';
import { crashPoint } from '../config/processes.ts';
import { parseRecord } from '../store/records.ts';
import { getAll, listPage, type RecordRef, type Store, type Write } from '../store/store.ts';
import { markStepDone } from '../settings/settings.ts';
import { domainOf, normaliseDomain } from './match.ts';
import { EVERY_WORKFLOW } from './rule-sets.ts';
import { reachOf, sourceScope } from './source-key.ts';

/** The record that says every rule is in its key (in `settings`). */
export const RULE_KEYS_MIGRATED_ID = 'migration:rule-keys';
const TRIES = 8;
const BATCH = 100;

export const RuleKeySchema = z.object({
  id: z.string(),
  version: z.number().int(),
  /** The live rules of this scope and match key, oldest first. */
  rules: z.array(RuleSchema),
});

/** The scope part of a rule's key: its source's, its workflow's, or every workflow's. */
export function keyScopeOf(rule: Pick<Rule, 'workflow_id' | 'source_key' | 'scope'>): string {
  const reach = reachOf(rule);
  if (reach.kind === 'source') return sourceScope(reach.key);
  return reach.kind === 'workflow' ? reach.id : EVERY_WORKFLOW;
}

/** The key a rule is indexed under. */
export function ruleKeyOf(rule: Pick<Rule, 'workflow_id' | 'source_key' | 'scope' | 'match'>): string {
  const scope = keyScopeOf(rule);
  const { match } = rule;
  if ('sender' in match) return `${scope}|s|${match.sender.trim().toLowerCase()}`;
  if ('domain' in match) return `${scope}|d|${normaliseDomain(match.domain)}`;
  return `${scope}|k`;
}

/**
 * The keys of the rules that may fire on an item from `senderAddress` in a workflow reading
 * source `sourceKey` (null: a caller that does not know it reads the workflow's and every
 * workflow's only).
 */
export function keysForSender(workflowId: string, senderAddress: string, sourceKey: string | null): string[] {
  const address = senderAddress.trim().toLowerCase();
  const domain = domainOf(address);
  const scopes = [workflowId, ...(sourceKey ? [sourceScope(sourceKey)] : []), EVERY_WORKFLOW];
  return scopes.flatMap((scope) => [
    ...(domain ? [`${scope}|s|${address}`, `${scope}|d|${domain}`] : []),
    `${scope}|k`,
  ]);
}

/**
 * Whether every rule is in its key: the marker, else a workspace with no rule yet (a page of
 * one, nothing written: a run of a new workspace writes what a run of any other does).
 */
export async function ruleKeysReady(store: Store): Promise<boolean> {
  if ((await store.get('settings', RULE_KEYS_MIGRATED_ID)) !== undefined) return true;
  return (await listPage(store, 'rules', '', { limit: 1 })).items.length === 0;
}

/**
 * After this build wrote `written`: a workspace with no other rule (none an earlier build left
 * out of the keys) is marked indexed. Two first rules written at once may both see the other and
 * mark nothing: the rules are then read the older way until `handoff store migrate`.
 */
export async function markIndexedIfOnly(store: Store, written: readonly Rule[]): Promise<void> {
  if ((await store.get('settings', RULE_KEYS_MIGRATED_ID)) !== undefined) return;
  const ours = new Set(written.map((r) => r.id));
  const page = await listPage(store, 'rules', '', { limit: ours.size + 1 });
  if (page.items.every((r) => ours.has(r.id))) await markIndexed(store);
}

async function markIndexed(store: Store): Promise<void> {
  await markStepDone(store, RULE_KEYS_MIGRATED_ID); // kept if another process marked it first
}

/** The live rules under `keys` (one batched read), oldest first. */
export async function rulesUnder(store: Store, keys: readonly string[]): Promise<Rule[]> {
  const records = await getAll(store, 'rule_keys', [...new Set(keys)]);
  return records
    .flatMap((r) => (r ? parseRecord(RuleKeySchema, 'rule_keys', r).rules : []))
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** A key's rules after `added` (live ones kept, replacing any of the same id) and `removed`. */
function changed(
  rules: readonly Rule[],
  key: string,
  added: readonly Rule[],
  removed: readonly Rule[],
): Rule[] {
  const gone = new Set([...removed, ...added].map((r) => r.id));
  const kept = rules.filter((r) => !gone.has(r.id));
  const fresh = added.filter((r) => isLive(r) && ruleKeyOf(r) === key);
  return [...kept, ...fresh].sort((a, b) => a.created_at.localeCompare(b.created_at));
}

function keysOf(added: readonly Rule[], removed: readonly Rule[]): string[] {
  return [...new Set([...added, ...removed].map(ruleKeyOf))];
}

/**
 * The writes that put `added` into their keys and take `removed` out, conditional on the key
 * records read now (one batched read): to go in the commit of the rule writes themselves.
 */
export async function ruleKeyWrites(
  store: Store,
  added: readonly Rule[],
  removed: readonly Rule[],
): Promise<Write[]> {
  const keys = keysOf(added, removed);
  const stored = await getAll(store, 'rule_keys', keys);
  return keys.map((key, i): Write => {
    const before = stored[i] ? parseRecord(RuleKeySchema, 'rule_keys', stored[i]) : null;
    const record = { id: key, rules: changed(before?.rules ?? [], key, added, removed) };
    return before
      ? { kind: 'update', collection: 'rule_keys', record, expectedVersion: before.version }
      : { kind: 'create', collection: 'rule_keys', record };
  });
}

/**
 * Puts `added` into their keys and takes `removed` out, one key record at a time, reading it
 * again when another writer moved it: after a rule was written outside the learner's commit.
 */
export async function indexRules(
  store: Store,
  added: readonly Rule[],
  removed: readonly Rule[],
): Promise<void> {
  for (const key of keysOf(added, removed)) {
    for (let attempt = 1; ; attempt++) {
      const raw = await store.get('rule_keys', key);
      const before = raw ? parseRecord(RuleKeySchema, 'rule_keys', raw) : null;
      const record = { id: key, rules: changed(before?.rules ?? [], key, added, removed) };
      try {
        if (before) await store.update('rule_keys', record, before.version);
        else await store.create('rule_keys', record);
        break;
      } catch (error) {
        const lost = error instanceof VersionConflictError || error instanceof RecordExistsError;
        if (!lost || attempt >= TRIES) throw error;
      }
    }
  }
  await markIndexedIfOnly(store, added);
}

/** What the rule-keys step of `handoff store migrate` did. */
export interface RuleKeysReport {
  already_done: boolean;
  /** Key records written. */
  keys: number;
}

/**
 * The rule-keys step of `handoff store migrate`: lists the rules once and writes each key's
 * record from the live rules under it (a put of the same record each time: idempotent), then
 * the marker, last; a migration killed in the middle is simply run again.
 */
export async function migrateRuleKeys(store: Store): Promise<RuleKeysReport> {
  if ((await store.get('settings', RULE_KEYS_MIGRATED_ID)) !== undefined)
    return { already_done: true, keys: 0 };
  const live = (await store.list('rules'))
    .map((r) => parseRecord(RuleSchema, 'rules', r))
    .filter((r) => isLive(r))
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
  const byKey = new Map<string, Rule[]>();
  for (const rule of live) {
    const key = ruleKeyOf(rule);
    byKey.set(key, [...(byKey.get(key) ?? []), rule]);
  }
  const entries = [...byKey.entries()];
  for (let i = 0; i < entries.length; i += BATCH) {
    for (const [id, rules] of entries.slice(i, i + BATCH)) await putKey(store, id, rules);
    crashPoint('migrate:rule-keys-batch');
  }
  await markIndexed(store);
  return { already_done: false, keys: entries.length };
}

/** Writes a key's record as `rules`, whatever it held (retried when a writer moved it meanwhile). */
async function putKey(store: Store, id: string, rules: Rule[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const raw = await store.get('rule_keys', id);
    try {
      if (raw) await store.update('rule_keys', { id, rules }, Number(raw.version));
      else await store.create('rule_keys', { id, rules });
      return;
    } catch (error) {
      const lost = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!lost || attempt >= TRIES) throw error;
    }
  }
}

/** The key records of the given scopes among `keys`. */
const inScopes = (keys: readonly string[], scopes: readonly string[]) =>
  keys.filter((k) => scopes.some((scope) => k.startsWith(`${scope}|`)));

/** The scopes an answer's rule may be written under: its workflow's and its source's. */
const answerScopes = (workflowId: string, sourceKey: string | null) => [
  workflowId,
  ...(sourceKey ? [sourceScope(sourceKey)] : []),
];

/**
 * What an answer reads of the rules, to prefetch with its batch: the marker, and the keys of
 * its sender and domain in every scope (the learner reads its workflow's and its source's, a
 * domain proposal all). `sourceKey`: the source the question's workflow reads (null: unknown).
 */
export function answerRuleRefs(workflowId: string, sender: string, sourceKey: string | null): RecordRef[] {
  return [
    { collection: 'settings', id: RULE_KEYS_MIGRATED_ID },
    ...keysForSender(workflowId, sender, sourceKey).map((id) => ({ collection: 'rule_keys' as const, id })),
  ];
}

/**
 * The live rules of the workflow and of its source (`sourceKey`) that may bear on an answer
 * about an item from `sender` (and on a rule matching `proposed`), by key; null while the
 * rules are not indexed yet (the caller reads the copies of rule-sets.ts then).
 */
export async function ownRulesForAnswer(
  store: Store,
  workflowId: string,
  sender: string,
  sourceKey: string | null,
  proposed: Rule['match'] | null = null,
): Promise<Rule[] | null> {
  if (!(await ruleKeysReady(store))) return null;
  const keys = inScopes(keysForSender(workflowId, sender, sourceKey), answerScopes(workflowId, sourceKey));
  if (proposed) {
    keys.push(ruleKeyOf({ workflow_id: workflowId, source_key: null, scope: 'workflow', match: proposed }));
    if (sourceKey)
      keys.push(
        ruleKeyOf({ workflow_id: workflowId, source_key: sourceKey, scope: 'source', match: proposed }),
      );
  }
  return rulesUnder(store, keys);
}

/**
 * The live rules of a workflow, of its source and of every workflow matching `domain` exactly,
 * by key; null while not indexed.
 */
export async function domainRulesOf(
  store: Store,
  workflowId: string,
  domain: string,
  sourceKey: string | null = null,
): Promise<Rule[] | null> {
  if (!(await ruleKeysReady(store))) return null;
  const key = normaliseDomain(domain);
  const scopes = [...answerScopes(workflowId, sourceKey), EVERY_WORKFLOW];
  return rulesUnder(
    store,
    scopes.map((scope) => `${scope}|d|${key}`),
  );
}

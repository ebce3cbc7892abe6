import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { newId } from '../store/ids.ts';
import { keyedPage } from '../store/keyed-page.ts';
import { getRecord, listRecords, parseRecord } from '../store/records.ts';
import { listPage, type Store } from '../store/store.ts';
import type { MemoryMirror } from './mirror.ts';
import { invalidateRuleSet } from './rule-sets.ts';
import { indexRules } from './rule-keys.ts';
import { ruleApplies } from './source-key.ts';
import { isLive, RuleSchema, type Rule, type RuleMatch } from '../records/rule.ts';

export interface NewRule {
  /** A chosen id (e.g. one already promised to a proposal); a new one otherwise. */
  id?: string;
  workflowId: string | null;
  match: RuleMatch;
  action: string;
  note: string | null;
}

/** Adds a rule you set. */
export async function addRule(store: Store, input: NewRule): Promise<Rule> {
  const rule: Rule = RuleSchema.parse({
    id: input.id ?? newId('rule'),
    workflow_id: input.workflowId,
    match: input.match,
    action: input.action,
    source: 'you',
    note: input.note,
    confidence: 1,
    created_at: new Date().toISOString(),
  });
  const created = RuleSchema.parse(await store.create('rules', rule));
  await indexRules(store, [created], []);
  await invalidateRuleSet(store, created.workflow_id);
  return created;
}

/**
 * Every rule, oldest first (superseded ones included: they are history); deleted ones only
 * when asked (`withDeleted`: a workspace file applied over them).
 */
export async function listRules(store: Store, opts: { withDeleted?: boolean } = {}): Promise<Rule[]> {
  return (await listRecords(store, 'rules', RuleSchema))
    .filter((r) => opts.withDeleted === true || r.deleted_at === null)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/**
 * A page of rules, newest first (rule ids sort by when they were made), reading what it shows
 * plus one; `next_cursor` names the next page (null at the last).
 */
export async function rulesPage(
  store: Store,
  limit: number,
  cursor: string | null = null,
): Promise<{ rules: Rule[]; next_cursor: string | null }> {
  const page = await listPage(store, 'rules', '', { limit, cursor, descending: true });
  return { rules: page.items.map((r) => parseRecord(RuleSchema, 'rules', r)), next_cursor: page.next_cursor };
}

/**
 * The newest `limit` live rules a workflow's page shows (its own and every workflow's), oldest
 * first, read newest first a page at a time (never every rule); `more` when older ones follow.
 */
export async function liveRulesOfWorkflow(
  store: Store,
  workflowId: string,
  limit: number,
): Promise<{ rules: Rule[]; more: boolean }> {
  const page = await keyedPage(
    (p) => listPage(store, 'rules', '', { ...p, descending: true }),
    limit,
    null,
    (r) =>
      r.superseded_by === null &&
      (r.deleted_at ?? null) === null &&
      (r.workflow_id === null || r.workflow_id === workflowId),
  );
  return {
    rules: page.items.map((r) => parseRecord(RuleSchema, 'rules', r)).reverse(),
    more: page.next_cursor !== null,
  };
}

/**
 * Rules that may fire for a workflow: its own, those of the source it reads (`sourceKey`) and
 * those for every workflow, not superseded.
 */
export async function liveRulesFor(
  store: Store,
  workflowId: string,
  sourceKey: string | null = null,
): Promise<Rule[]> {
  return (await listRules(store)).filter((r) => isLive(r) && ruleApplies(r, workflowId, sourceKey));
}

/**
 * Deletes a rule (from Memory, the CLI, an answer's Undo): it stops firing at once (out of its
 * key and its scope's copy) and leaves the lists, and for a while `restoreRule` (rule-undo.ts)
 * brings it back as it was. The record stays, marked `deleted_at`; the memory mirror forgets it now.
 */
export async function revokeRule(
  store: Store,
  mirror: MemoryMirror,
  id: string,
  now: Date = new Date(),
): Promise<Rule> {
  const rule = await deleteRule(store, id, now);
  await mirror.ruleRetired(rule, rule.mirror_ids);
  return rule;
}

/** Marks a rule deleted (see revokeRule); NotFoundError for an unknown or already deleted one. */
export async function deleteRule(store: Store, id: string, now: Date = new Date()): Promise<Rule> {
  const rule = await getRecord(store, 'rules', RuleSchema, id);
  if (!rule || rule.deleted_at !== null) throw new NotFoundError(`no rule "${id}": see \`handoff rules\``);
  const deleted = await rewriteRule(store, rule, { deleted_at: now.toISOString() });
  await indexRules(store, [], [rule]);
  await invalidateRuleSet(store, rule.workflow_id);
  return deleted;
}

/** The rule with `change`, written on the condition that nobody moved it since it was read. */
export async function rewriteRule(store: Store, rule: Rule, change: Partial<Rule>): Promise<Rule> {
  const { version, ...fields } = { ...rule, ...change };
  if (version === undefined) throw new InvalidInputError(`rule "${rule.id}" has no version`);
  return RuleSchema.parse(await store.update('rules', fields, version));
}

/**
 * Whether a rule is found by `text`: in what it matches, its action, its pattern, its note,
 * its workflow or its mailbox (case-insensitive; empty text finds every rule).
 */
export function ruleFound(rule: Rule, text: string): boolean {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return true;
  const match =
    'sender' in rule.match
      ? rule.match.sender
      : 'domain' in rule.match
        ? rule.match.domain
        : rule.match.keywords.join(' ');
  return [match, rule.action, rule.pattern, rule.note, rule.workflow_id, rule.source_key]
    .filter((part): part is string => typeof part === 'string')
    .some((part) => part.toLowerCase().includes(wanted));
}

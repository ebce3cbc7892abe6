import { NotFoundError } from '../errors/index.ts';
import { newId } from '../store/ids.ts';
import { keyedPage } from '../store/keyed-page.ts';
import { getRecord, listRecords, parseRecord } from '../store/records.ts';
import { listPage, type Store } from '../store/store.ts';
import type { MemoryMirror } from './mirror.ts';
import { invalidateRuleSet } from './rule-sets.ts';
import { indexRules } from './rule-keys.ts';
import { ruleApplies } from './source-key.ts';
import { RuleSchema, type Rule, type RuleMatch } from '../records/rule.ts';

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

/** Every rule, oldest first (superseded ones included: they are history). */
export async function listRules(store: Store): Promise<Rule[]> {
  return (await listRecords(store, 'rules', RuleSchema)).sort((a, b) =>
    a.created_at.localeCompare(b.created_at),
  );
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
    (r) => r.superseded_by === null && (r.workflow_id === null || r.workflow_id === workflowId),
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
  return (await listRules(store)).filter(
    (r) => r.superseded_by === null && ruleApplies(r, workflowId, sourceKey),
  );
}

/** Revokes a rule: gone from recall, and from the memory mirror. */
export async function revokeRule(store: Store, mirror: MemoryMirror, id: string): Promise<Rule> {
  const rule = await deleteRule(store, id);
  await mirror.ruleRetired(rule, rule.mirror_ids);
  return rule;
}

export async function deleteRule(store: Store, id: string): Promise<Rule> {
  const rule = await getRecord(store, 'rules', RuleSchema, id);
  if (!rule) throw new NotFoundError(`no rule "${id}": see \`handoff rules\``);
  await store.delete('rules', id);
  await indexRules(store, [], [rule]);
  await invalidateRuleSet(store, rule.workflow_id);
  return rule;
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

/**
 * Undoing a deletion: a deleted rule (rules-repository.ts, `revokeRule`) can be restored for
 * UNDO_WINDOW_MS; after that it is gone for good. Apart from the repository, so what runs and
 * answers load does not carry it (Memory and the CLI load it).
 */
import { NotFoundError, UndoExpiredError } from '../errors/index.ts';
import { RuleSchema, type Rule } from '../records/rule.ts';
import { getRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import type { MemoryMirror } from './mirror.ts';
import { invalidateRuleSet } from './rule-sets.ts';
import { indexRules } from './rule-keys.ts';
import { rewriteRule } from './rules-repository.ts';

/** How long a deleted rule can be restored: after this it is gone for good (and may be purged). */
export const UNDO_WINDOW_MS = 10 * 60_000;

/** Until when a deleted rule can be restored (null: it is not deleted). */
export function restorableUntil(rule: Pick<Rule, 'deleted_at'>): Date | null {
  return rule.deleted_at === null ? null : new Date(Date.parse(rule.deleted_at) + UNDO_WINDOW_MS);
}

/**
 * Brings a deleted rule back within UNDO_WINDOW_MS of its deletion: it fires again (in its key
 * and its scope's copy) and is listed again. A rule not deleted is returned as it is. After
 * the window: UndoExpiredError, and the record is purged.
 */
export async function restoreRule(
  store: Store,
  mirror: MemoryMirror,
  id: string,
  now: Date = new Date(),
): Promise<Rule> {
  const rule = await getRecord(store, 'rules', RuleSchema, id);
  if (!rule) throw new NotFoundError(`no rule "${id}": see \`handoff rules\``);
  const until = restorableUntil(rule);
  if (until === null) return rule;
  if (now > until) {
    await store.delete('rules', id);
    throw new UndoExpiredError(
      `the rule "${rule.pattern ?? id}" was deleted more than ${UNDO_WINDOW_MS / 60_000} minutes ago and can no longer be restored; add it again instead`,
    );
  }
  const restored = await rewriteRule(store, rule, { deleted_at: null });
  await indexRules(store, [restored], []);
  await invalidateRuleSet(store, restored.workflow_id);
  if (restored.source === 'learned') {
    const mirrorIds = await mirror.ruleLearned(restored).catch(() => restored.mirror_ids);
    if (mirrorIds.length > 0 && mirrorIds.join() !== restored.mirror_ids.join())
      return rewriteRule(store, restored, { mirror_ids: mirrorIds });
  }
  return restored;
}

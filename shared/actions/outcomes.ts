import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { stableId } from '../store/ids.ts';
import { getRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { ItemOutcomeSchema, type ItemOutcome } from '../records/outcomes.ts';

export function outcomeId(workflowId: string, itemId: string): string {
  return `${workflowId}|${itemId}`;
}

/**
 * The id of the audit entry that records what was done with a claimed item. The entry is
 * written before the claim is settled, so a settled claim always has its entry, and a
 * claim still `acting` whose entry exists was carried out in full.
 */
export function auditIdOf(outcome: Pick<ItemOutcome, 'id'>): string {
  return stableId('aud', outcome.id);
}

export async function getOutcome(
  store: Store,
  workflowId: string,
  itemId: string,
): Promise<ItemOutcome | undefined> {
  return getRecord(store, 'outcomes', ItemOutcomeSchema, outcomeId(workflowId, itemId));
}

/** Whether another run has the item: it has an outcome, or another run holds it. */
export function takenByAnother(outcome: ItemOutcome | undefined, runId: string): boolean {
  return outcome !== undefined && !isFreeFor(outcome, runId);
}

/** A released hold is free for any run; a hold is free for the run that holds it. */
function isFreeFor(outcome: ItemOutcome, runId: string): boolean {
  return outcome.status === 'released' || (outcome.status === 'held' && outcome.run_id === runId);
}

/**
 * Claims the item for this run, taking over this run's own hold on it (or a released
 * one); returns null when another run (or an earlier attempt) already has it.
 */
export async function claimOutcome(
  store: Store,
  claim: Omit<ItemOutcome, 'id' | 'version' | 'at'>,
): Promise<ItemOutcome | null> {
  const record = { ...claim, id: outcomeId(claim.workflow_id, claim.item_id), at: new Date().toISOString() };
  try {
    return await store.create('outcomes', record);
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error;
  }
  const current = await getOutcome(store, claim.workflow_id, claim.item_id);
  if (!current || !isFreeFor(current, claim.run_id)) return null;
  try {
    return ItemOutcomeSchema.parse(await store.update('outcomes', record, current.version));
  } catch (error) {
    if (error instanceof VersionConflictError) return null; // another run took it, or the run was failed
    throw error;
  }
}

/**
 * Holds the item for this run, which is about to ask the person about it. False when
 * another run has it (holds it, or it has an outcome): this run must not ask about it.
 */
export async function holdItem(
  store: Store,
  item: { workflowId: string; itemId: string; runId: string; fingerprint?: string | undefined },
): Promise<boolean> {
  const claimed = await claimOutcome(store, {
    workflow_id: item.workflowId,
    item_id: item.itemId,
    run_id: item.runId,
    action: null,
    status: 'held',
    ...(item.fingerprint !== undefined ? { fingerprint: item.fingerprint } : {}),
  });
  return claimed !== null;
}

/**
 * Releases the holds a run still has (it failed or died before acting on the answers),
 * so a later run asks about those items again; a hold claimed meanwhile is left alone. `itemIds` narrows the search; without
 * it every held item is looked at.
 */
export async function releaseHolds(
  store: Store,
  run: { id: string; workflow_id: string },
  itemIds?: readonly string[],
): Promise<void> {
  const held =
    itemIds === undefined
      ? (await store.listWithStatus('outcomes', 'held')).map((r) => ItemOutcomeSchema.parse(r))
      : await Promise.all(itemIds.map((id) => getOutcome(store, run.workflow_id, id)));
  for (const outcome of held) {
    if (outcome?.status !== 'held' || outcome.run_id !== run.id || outcome.workflow_id !== run.workflow_id)
      continue;
    try {
      await store.update(
        'outcomes',
        { ...outcome, status: 'released', at: new Date().toISOString() },
        outcome.version,
      );
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error; // claimed meanwhile: it is acted on
    }
  }
}

export async function settleOutcome(
  store: Store,
  claim: ItemOutcome,
  status: ItemOutcome['status'],
): Promise<void> {
  await store.update('outcomes', { ...claim, status, at: new Date().toISOString() }, claim.version);
}

import { z } from 'zod';
import { RecordExistsError } from '../errors/index.ts';
import { stableId } from '../store/ids.ts';
import { getRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';

/**
 * One record per (workflow, item) that got an outcome. It is claimed before the action
 * runs, so an item is never acted on twice, even across a crash or two concurrent runs.
 */
export const ItemOutcomeSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  workflow_id: z.string(),
  item_id: z.string(),
  run_id: z.string(),
  action: z.string().nullable(),
  status: z.enum(['acting', 'acted', 'declined', 'expired', 'failed', 'unparseable']),
  at: z.string(),
});
export type ItemOutcome = z.infer<typeof ItemOutcomeSchema>;

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

/** Claims the item for this run; returns null when another run (or an earlier attempt) already has it. */
export async function claimOutcome(
  store: Store,
  claim: Omit<ItemOutcome, 'id' | 'version' | 'at'>,
): Promise<ItemOutcome | null> {
  try {
    return await store.create('outcomes', {
      ...claim,
      id: outcomeId(claim.workflow_id, claim.item_id),
      at: new Date().toISOString(),
    });
  } catch (error) {
    if (error instanceof RecordExistsError) return null;
    throw error;
  }
}

export async function settleOutcome(
  store: Store,
  claim: ItemOutcome,
  status: ItemOutcome['status'],
): Promise<void> {
  await store.update('outcomes', { ...claim, status, at: new Date().toISOString() }, claim.version);
}

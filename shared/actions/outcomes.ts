import { auditIdFor, legacyAuditId } from '../audit/audit-ids.ts';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { getRecord, getRecords } from '../store/records.ts';
import { commitAll, type Store, type Write } from '../store/store.ts';
import { ItemOutcomeSchema, type ItemOutcome } from '../records/outcomes.ts';

export function outcomeId(workflowId: string, itemId: string): string {
  return `${workflowId}|${itemId}`;
}

/**
 * The id of the audit entry that records what was done with a claimed item. The entry is
 * written before the claim is settled, so a settled claim always has its entry, and a
 * claim still `acting` whose entry exists was carried out in full.
 */
export function auditIdOf(outcome: Pick<ItemOutcome, 'id' | 'run_id'>): string {
  return auditIdFor(outcome.run_id, outcome.id);
}

/** The id `auditIdOf` gave before audit ids carried their run's key: crash recovery reads both until migrated. */
export function legacyAuditIdOf(outcome: Pick<ItemOutcome, 'id'>): string {
  return legacyAuditId(outcome.id);
}

export async function getOutcome(
  store: Store,
  workflowId: string,
  itemId: string,
): Promise<ItemOutcome | undefined> {
  return getRecord(store, 'outcomes', ItemOutcomeSchema, outcomeId(workflowId, itemId));
}

/** The stored outcomes of many items of a workflow (undefined where none), in one read where the store can. */
export async function getOutcomes(
  store: Store,
  workflowId: string,
  itemIds: readonly string[],
): Promise<Map<string, ItemOutcome | undefined>> {
  const outcomes = await getRecords(
    store,
    'outcomes',
    ItemOutcomeSchema,
    itemIds.map((id) => outcomeId(workflowId, id)),
  );
  return new Map(itemIds.map((id, i) => [id, outcomes[i]]));
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
  return (await claimOutcomes(store, [claim]))[0]!;
}

/**
 * Claims many items in one durable write (a second one only for items found taken that
 * this run holds or that were released, which are taken over); null for each item another
 * run has. `heldItems`: items this run is known to hold (set aside before its pause),
 * read first and taken over in that same one write, not tried as new claims first.
 * `interim`: the caller settles these claims in its next write (the store may keep them in
 * one place until then).
 */
export async function claimOutcomes(
  store: Store,
  claims: readonly Omit<ItemOutcome, 'id' | 'version' | 'at'>[],
  options: { heldItems?: ReadonlySet<string>; interim?: boolean } = {},
): Promise<(ItemOutcome | null)[]> {
  const at = new Date().toISOString();
  const records = claims.map((c) => ({ ...c, id: outcomeId(c.workflow_id, c.item_id), at }));
  const heldAt = records.flatMap((r, index) => (options.heldItems?.has(r.item_id) ? [index] : []));
  const holds = new Map(
    (
      await getRecords(
        store,
        'outcomes',
        ItemOutcomeSchema,
        heldAt.map((index) => records[index]!.id),
      )
    ).map((current, k) => [heldAt[k]!, current]),
  );
  const first: { index: number; write: Write }[] = [];
  for (const [index, record] of records.entries()) {
    const current = holds.get(index);
    if (current === undefined)
      first.push({ index, write: { kind: 'create', collection: 'outcomes', record } });
    else if (isFreeFor(current, record.run_id)) {
      // A claim made without the item's content (a skip after a pause) keeps the hold's fingerprint.
      const kept = current.fingerprint !== undefined ? { fingerprint: current.fingerprint } : {};
      first.push({
        index,
        write: {
          kind: 'update',
          collection: 'outcomes',
          record: { ...kept, ...record },
          expectedVersion: current.version,
        },
      });
    }
  }
  const written = await commitAll(
    store,
    first.map((f) => f.write),
    { interim: options.interim ?? false },
  );
  const claimed: (ItemOutcome | null)[] = records.map(() => null);
  const lost: number[] = [];
  for (const [k, result] of written.entries()) {
    const { index, write } = first[k]!;
    if (result.ok) claimed[index] = ItemOutcomeSchema.parse(result.record);
    else if (write.kind === 'create' && result.error instanceof RecordExistsError) lost.push(index);
    // A version conflict: another run took it meanwhile, or the run was failed.
    else if (!(result.error instanceof VersionConflictError)) throw result.error;
  }
  // The claims in the way, read in one request where the store can.
  const stored = await getRecords(
    store,
    'outcomes',
    ItemOutcomeSchema,
    lost.map((index) => records[index]!.id),
  );
  const retake: { index: number; current: ItemOutcome }[] = [];
  for (const [k, index] of lost.entries()) {
    const current = stored[k];
    if (current && isFreeFor(current, records[index]!.run_id)) retake.push({ index, current });
  }
  const updated = await commitAll(
    store,
    retake.map(({ index, current }) => ({
      kind: 'update' as const,
      collection: 'outcomes' as const,
      record: records[index]!,
      expectedVersion: current.version,
    })),
  );
  for (const [k, result] of updated.entries()) {
    // A version conflict: another run took it meanwhile, or the run was failed.
    if (result.ok) claimed[retake[k]!.index] = ItemOutcomeSchema.parse(result.record);
    else if (!(result.error instanceof VersionConflictError)) throw result.error;
  }
  return claimed;
}

/** The write that settles a claim with its outcome (see `settleOutcome`). */
export function settleWrite(claim: ItemOutcome, status: ItemOutcome['status']): Write {
  return {
    kind: 'update',
    collection: 'outcomes',
    record: { ...claim, status, at: new Date().toISOString() },
    expectedVersion: claim.version,
  };
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
  const write = settleWrite(claim, status);
  if (write.kind === 'update') await store.update(write.collection, write.record, write.expectedVersion);
}

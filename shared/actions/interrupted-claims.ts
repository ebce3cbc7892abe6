import { appendAudit, getAuditEntry } from '../audit/audit.ts';
import { VersionConflictError } from '../errors/index.ts';
import { auditIdOf, legacyAuditIdOf, settleOutcome } from './outcomes.ts';
import { ItemOutcomeSchema, type ItemOutcome } from '../records/outcomes.ts';
import type { Store } from '../store/store.ts';
import type { Run } from '../records/runs.ts';

/**
 * Settles a claim a dead process left `acting`. When its audit entry was written, the
 * action was carried out in full and the claim takes the entry's outcome; otherwise the
 * action may be half done: recorded as failed, for a person to check. The entry is
 * written before the claim is settled, so a recovery killed midway is simply redone, and
 * of two recoveries at once the second finds the claim settled and leaves it.
 */
export async function settleInterrupted(
  store: Store,
  run: Pick<Run, 'id' | 'workflow_id'>,
  outcome: ItemOutcome,
): Promise<void> {
  const id = auditIdOf(outcome);
  // An entry written before audit ids carried their run's key sits at its older id until migrated.
  const entry =
    (await getAuditEntry(store, id)) ??
    (await getAuditEntry(store, legacyAuditIdOf(outcome))) ??
    (await appendAudit(store, {
      id,
      run_id: run.id,
      workflow_id: run.workflow_id,
      item_id: outcome.item_id,
      outcome: 'failed',
      action: outcome.action,
      decided_by: null,
      detail: 'the process stopped in the middle of this action; check the item by hand',
    }));
  const status = ItemOutcomeSchema.shape.status.safeParse(entry.outcome).data ?? 'failed';
  try {
    await settleOutcome(store, outcome, status);
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error; // settled meanwhile
  }
}

/** The claims still `acting`, by the run that made them. */
export async function actingClaimsByRun(store: Store): Promise<Map<string, ItemOutcome[]>> {
  const byRun = new Map<string, ItemOutcome[]>();
  for (const record of await store.listWithStatus('outcomes', 'acting')) {
    const claim = ItemOutcomeSchema.parse(record);
    byRun.set(claim.run_id, [...(byRun.get(claim.run_id) ?? []), claim]);
  }
  return byRun;
}

/**
 * On resume, the items whose answers were carried out as they arrived (runs/carry-answer.ts)
 * are counted from their outcome and never acted on or recorded again; the rest are carried
 * out with the resume, as always.
 */
import { getOutcome, getOutcomes } from '../actions/outcomes.ts';
import type { ItemOutcome } from '../records/outcomes.ts';
import type { RunCounts } from '../records/runs.ts';
import type { DeferredItem } from '../run-state/run-ledger.ts';
import type { RunContext } from '../run-state/run-context.ts';
import { settleInterrupted } from '../actions/interrupted-claims.ts';

/**
 * The items set aside still to be carried out: those this run still holds (or that were
 * released untouched). One this run already claimed was carried out on its answer; a claim
 * left `acting` (the answering process died midway) is settled first from its audit entry,
 * or as failed, to be checked by hand. Either way it is counted here, in the run's ledger.
 */
export async function notYetCarriedOut(
  ctx: RunContext,
  asked: readonly DeferredItem[],
): Promise<DeferredItem[]> {
  const outcomes = await getOutcomes(
    ctx.store,
    ctx.workflow.id,
    asked.map((d) => d.item_id),
  );
  const left: DeferredItem[] = [];
  for (const entry of asked) {
    let outcome = outcomes.get(entry.item_id);
    if (
      !outcome ||
      outcome.run_id !== ctx.runId ||
      outcome.status === 'held' ||
      outcome.status === 'released'
    ) {
      left.push(entry);
      continue;
    }
    if (outcome.status === 'acting' && ctx.answersCarriedElsewhere)
      outcome = await settledMeanwhile(ctx, outcome);
    if (outcome.status === 'acting') {
      await settleInterrupted(ctx.store, { id: ctx.runId, workflow_id: ctx.workflow.id }, outcome);
      outcome = (await getOutcome(ctx.store, ctx.workflow.id, entry.item_id)) ?? outcome;
    }
    ctx.ledger.bump(countsOf(outcome));
  }
  return left;
}

/** How long a claim taken to carry out an answer may be in the middle of its action. */
export const CARRY_LEASE_MS = 60_000;
const POLL_MS = 250;

/**
 * A claim still `acting` that another process took less than a lease ago (an answer being
 * carried out right now, AWS), as it is once that process settles it; as it is at the end of
 * the lease otherwise (its process died: it is then settled from its audit entry).
 */
async function settledMeanwhile(
  ctx: RunContext,
  claim: ItemOutcome,
  leaseMs = CARRY_LEASE_MS,
): Promise<ItemOutcome> {
  const until = Date.parse(claim.at) + leaseMs;
  let current = claim;
  while (current.status === 'acting' && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, until - Date.now()))));
    current = (await getOutcome(ctx.store, ctx.workflow.id, claim.item_id)) ?? current;
  }
  return current;
}

/** What a person's answer carried out adds to the counts (as countFor does for a human choice). */
function countsOf(outcome: ItemOutcome): (keyof RunCounts)[] {
  if (outcome.status === 'acted') return ['acted', 'by_you'];
  if (outcome.status === 'failed') return ['failed'];
  if (outcome.status === 'declined' || outcome.status === 'expired') return ['declined'];
  return [];
}

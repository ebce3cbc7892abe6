/**
 * Decided items wait here to be carried out together: a batch of them (five pages, by
 * default) is claimed in one durable write and recorded in another, and a source that
 * does better in batches (IMAP: one MOVE per folder instead of one per message) gets
 * them in one `performMany`. The holds of the items set aside go with the next batch.
 *
 * Nothing is claimed while an item waits: a process that dies with a full queue leaves
 * those items untouched and unclaimed, and the next run decides them again. The queue is
 * emptied before the run asks the person anything and before the executor ends.
 */
import {
  carryOutMany,
  countFor,
  type CarryOutResult,
  type Choice,
  type Decided,
} from '../actions/carry-out.ts';
import type { SourceItem } from '../sources/source.ts';
import type { RunContext } from '../run-state/run-context.ts';

/** How many decided items wait, by default, before they are carried out together: five pages' worth. */
export const DEFAULT_ACT_BATCH = 50;

/**
 * How many decided items wait before they are carried out together: the source's own
 * batch (IMAP: 100), else DEFAULT_ACT_BATCH. Each batch costs two durable writes (its
 * claims, then its record), whatever its size.
 */
function batchOf(ctx: RunContext): number {
  return Math.max(1, ctx.source.actBatch ?? DEFAULT_ACT_BATCH);
}

/**
 * Takes one cleared choice: carries it out now (a source that acts one by one), or queues
 * it and returns null (carried out with the batch, by `flushDecided`).
 */
export async function submitDecided(
  ctx: RunContext,
  item: SourceItem,
  choice: Choice,
): Promise<CarryOutResult | null> {
  if (batchOf(ctx) === 1 && ctx.decided.length === 0) return (await carryOutNow(ctx, [{ item, choice }]))[0]!;
  ctx.decided.push({ item, choice });
  return null;
}

/**
 * Called before each tool call of the run's agents: a source lost earlier fails the run
 * here (thrown from a hook, so it ends the run, never reaches the model as a tool error);
 * a full queue, or any queue before finish_batch, is carried out.
 */
export async function beforeTool(ctx: RunContext, toolName: string): Promise<void> {
  if (ctx.sourceLost) throw ctx.sourceLost;
  if (toolName === 'finish_batch' || ctx.decided.length >= batchOf(ctx)) await flushDecided(ctx);
}

/** Carries out everything queued, and writes the holds of the items set aside, in one batch. */
export async function flushDecided(ctx: RunContext): Promise<void> {
  if (ctx.sourceLost) throw ctx.sourceLost;
  const batch = ctx.decided.splice(0);
  const holds = ctx.holds.splice(0);
  if (batch.length > 0 || holds.length > 0) await carryOutNow(ctx, batch, holds);
}

/**
 * Carries out a batch and tells the run (counts, feed). When the source went away, what
 * was done is still counted and told, and the error is remembered: every later tool call
 * of the run throws it, so the run fails and the untouched items wait for the next run.
 */
export async function carryOutNow(
  ctx: RunContext,
  batch: readonly Decided[],
  holds: readonly SourceItem[] = [],
): Promise<CarryOutResult[]> {
  const carryCtx = {
    store: ctx.store,
    source: ctx.source,
    workflowId: ctx.workflow.id,
    runId: ctx.runId,
    compose: ctx.compose,
  };
  const { results, unavailable, notHeld } = await carryOutMany(carryCtx, batch, holds);
  for (const item of notHeld) {
    ctx.ledger.undefer(item.id);
    ctx.emit('deferred', `Not asked: another run has ${item.subject}`, { item_id: item.id });
  }
  for (const [i, { item, choice }] of batch.entries())
    if (results[i]!.outcome !== 'released') report(ctx, item, choice, results[i]!);
  if (unavailable) {
    ctx.sourceLost = unavailable;
    throw unavailable;
  }
  return results;
}

function report(ctx: RunContext, item: SourceItem, choice: Choice, result: CarryOutResult): void {
  const counted = countFor(choice, result);
  ctx.ledger.bump(counted);
  // A rule fired when it decided the item (acted, left it alone, or failed trying), as counted.
  if (choice.decidedBy === 'memory' && choice.ruleId && counted.length > 0)
    ctx.ledger.ruleFired(choice.ruleId, new Date().toISOString());
  ctx.emit(
    result.outcome === 'failed' ? 'failed' : 'acted',
    `${choice.expired ? 'expired' : choice.action}: ${item.subject}`,
    {
      item_id: item.id,
      action: choice.action,
      outcome: result.outcome,
      decided_by: choice.decidedBy,
      ...(result.outcome === 'failed' ? { reason: result.detail } : {}),
      ...(choice.agent !== undefined ? { agent: choice.agent } : {}),
    },
  );
}

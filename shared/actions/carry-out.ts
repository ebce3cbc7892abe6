import { appendAudit } from '../audit/audit.ts';
import { type DecidedBy } from '../records/audit.ts';
import type { RunCounts } from '../records/runs.ts';
import { SourceUnavailableError, type ItemSource, type SourceItem } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import { crashPoint } from '../config/processes.ts';
import { recordMetric } from '../logging/metrics.ts';
import { auditIdOf, claimOutcome, settleOutcome } from './outcomes.ts';
import { errorMessage } from '../errors/index.ts';

export interface Choice {
  action: string;
  decidedBy: DecidedBy;
  confidence: number;
  reasoning: string | null;
  note: string | null;
  ruleId: string | null;
  /** The source of the rule, when decided by memory. */
  ruleSource: 'you' | 'learned' | null;
  /** An expired decision: recorded as `expired`, never acted. */
  expired?: boolean;
  /** Why it was never decided (shown in the audit), for an expired choice. */
  skipReason?: string | null;
  /** The specialist the item was handed to, which made (or asked about) this call. */
  agent?: string;
}

export interface CarryOutContext {
  store: Store;
  source: ItemSource;
  workflowId: string;
  runId: string;
}

export type CarryOutResult = {
  outcome: 'acted' | 'declined' | 'expired' | 'failed' | 'duplicate';
  detail: string;
};

/**
 * Carries out one choice on one item: claim the item, act (or decline), write its audit
 * entry, then settle the claim. A claimed item is never acted on again.
 */
export async function carryOut(
  ctx: CarryOutContext,
  item: SourceItem,
  choice: Choice,
): Promise<CarryOutResult> {
  const claim = await claimOutcome(ctx.store, {
    workflow_id: ctx.workflowId,
    item_id: item.id,
    run_id: ctx.runId,
    action: choice.action,
    status: 'acting',
    ...(item.fingerprint !== undefined ? { fingerprint: item.fingerprint } : {}),
  });
  if (!claim) return { outcome: 'duplicate', detail: 'already handled; nothing done' };

  let outcome: CarryOutResult['outcome'];
  let detail: string;
  if (choice.expired) {
    outcome = 'expired';
    detail = choice.skipReason ?? 'nobody answered in time; nothing done';
  } else if (choice.action === 'skip') {
    outcome = 'declined';
    detail = 'skipped; nothing done';
  } else {
    const started = performance.now();
    try {
      detail = await ctx.source.perform(choice.action, item, {
        store: ctx.store,
        workflowId: ctx.workflowId,
        runId: ctx.runId,
        note: choice.note,
        reasoning: choice.reasoning,
      });
      outcome = 'acted';
      recordMetric('ItemsActed');
      recordMetric('ItemLatency', performance.now() - started);
    } catch (error) {
      if (error instanceof SourceUnavailableError) {
        await settleOutcome(ctx.store, claim, 'released'); // untouched: the next run takes it
        throw error;
      }
      outcome = 'failed';
      detail = errorMessage(error);
    }
  }
  // The entry first: a process killed between the two leaves a claim still `acting` whose
  // entry exists, and recovery settles it from that entry.
  await appendAudit(ctx.store, {
    id: auditIdOf(claim),
    run_id: ctx.runId,
    workflow_id: ctx.workflowId,
    item_id: item.id,
    outcome,
    action: choice.action,
    decided_by: choice.expired ? null : choice.decidedBy,
    confidence: choice.confidence,
    reasoning: choice.reasoning,
    note: choice.note,
    rule_id: choice.ruleId,
    detail,
    agent: choice.agent,
  });
  crashPoint('carry-out:half-recorded');
  await settleOutcome(ctx.store, claim, outcome);
  return { outcome, detail };
}

/**
 * The counts a carried-out choice adds to. "Handled by memory" has one meaning: a rule
 * decided the item, whatever it chose (an action or skip) and however acting went. So it
 * matches the audit's `decided_by: memory` entries one for one; a rule's skip is not
 * also counted as declined.
 */
export function countFor(choice: Choice, result: CarryOutResult): (keyof RunCounts)[] {
  if (result.outcome === 'duplicate') return [];
  const outcome: keyof RunCounts =
    result.outcome === 'acted' ? 'acted' : result.outcome === 'failed' ? 'failed' : 'declined';
  if (choice.decidedBy === 'memory' && !choice.expired) {
    const rules = choice.ruleSource === 'you' ? 'by_your_rules' : 'by_learned_rules';
    return outcome === 'declined' ? [rules] : [outcome, rules];
  }
  if (outcome !== 'acted') return [outcome];
  if (choice.decidedBy === 'model') return ['acted', 'confident'];
  return choice.decidedBy === 'human' ? ['acted', 'by_you'] : ['acted'];
}

import type { Model } from '@strands-agents/sdk';
import { runLearner } from '../agents/learner/learner.ts';
import { senderDomain } from '../agents/learner/proposal.ts';
import { appendAudit } from '../audit/audit.ts';
import { findCoveringRule, type RecallSubject } from '../memory/match.ts';
import { liveRulesFor } from '../memory/rules-repository.ts';
import { invalidateRuleSet } from '../memory/rule-sets.ts';
import { indexRules, keysForSender, ruleKeysReady, rulesUnder } from '../memory/rule-keys.ts';
import { RuleSchema, type Rule } from '../records/rule.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/store.ts';
import type { GatedTool, GateRecord } from './types.ts';

/** The fields the gate reads from a call, never passed to recall or stored. */
const GATE_FIELDS = new Set(['confidence', 'reasoning', 'force_interrupt']);

/** What recall may look at for one call: the tool's own description, or its name and string values. */
export function recallSubject(
  tool: string,
  policy: GatedTool,
  input: Record<string, unknown>,
): RecallSubject {
  const described = policy.describe?.(input) ?? {};
  const text = Object.entries(input)
    .filter(([key, value]) => !GATE_FIELDS.has(key) && typeof value === 'string')
    .map(([, value]) => value as string)
    .join('\n');
  return {
    senderAddress: described.sender ?? '',
    subject: described.subject ?? tool,
    text: described.text ?? text,
  };
}

/**
 * The live rules of the scope that can cover calls about `senders` (none without a store): by
 * the keys of what they match (one batched read, as a run reads them), or every rule of the
 * scope in a store whose rules are not indexed yet (until `handoff store migrate`).
 */
export async function rulesOf(
  store: Store | undefined,
  scope: string,
  senders: readonly string[],
): Promise<Rule[]> {
  if (!store) return [];
  if (!(await ruleKeysReady(store))) return liveRulesFor(store, scope);
  return rulesUnder(
    store,
    senders.flatMap((sender) => keysForSender(scope, sender, null)),
  );
}

/** The rule that covers a call, if any; only a rule for this very tool, or `skip`, can apply to it. */
export function coveringRule(
  rules: readonly Rule[],
  scope: string,
  tool: string,
  subject: RecallSubject,
): Rule | undefined {
  const usable = rules.filter((r) => r.action === tool || r.action === 'skip');
  return findCoveringRule(usable, scope, subject);
}

/** Writes a gated call's outcome to the store's audit log (ids, actions and reasons only: never the input). */
export async function auditRecord(
  store: Store,
  scope: string,
  turn: string,
  record: GateRecord,
  reasoning: string,
): Promise<void> {
  await appendAudit(store, {
    run_id: turn,
    workflow_id: scope,
    item_id: record.id,
    outcome: record.outcome === 'skipped' ? 'declined' : record.outcome,
    action: record.outcome === 'skipped' ? 'skip' : record.tool,
    decided_by: record.decided_by,
    confidence: record.confidence,
    reasoning,
    note: record.note,
    rule_id: record.rule_id,
    detail: `${record.tool}${record.skipped_because ? `: skipped (${record.skipped_because})` : ''}`,
  });
}

/** One answer the Learner may learn from. */
export interface AnsweredCall {
  id: string;
  tool: string;
  irreversible: boolean;
  approved: boolean;
  note: string | null;
  subject: RecallSubject;
}

/**
 * Wakes the Learner for one answer and saves the one narrow rule it writes, if any (checked
 * against the answer like every learned rule: an irreversible tool never gets one).
 */
export async function learnFrom(
  store: Store,
  learner: Model,
  scope: string,
  call: AnsweredCall,
): Promise<Rule | null> {
  const chosen = call.approved ? call.tool : 'skip';
  const verdict = await runLearner(learner, {
    decision_id: call.id,
    workflow_id: scope,
    sender: call.subject.senderAddress,
    sender_domain: senderDomain(call.subject.senderAddress),
    subject: call.subject.subject,
    snippet: call.subject.text.slice(0, 400),
    suggested_action: call.tool,
    chosen_action: chosen,
    irreversible: call.irreversible,
    note: call.note,
  });
  if (verdict.kind !== 'rule') return null;
  const rule = RuleSchema.parse({
    id: newId('rule'),
    workflow_id: scope,
    match: verdict.proposal.match,
    action: chosen,
    source: 'learned',
    note: call.note,
    pattern: verdict.proposal.pattern,
    confidence: verdict.proposal.confidence,
    decision_id: call.id,
    item_id: call.id,
    created_at: new Date().toISOString(),
  });
  const created = RuleSchema.parse(await store.create('rules', rule));
  await indexRules(store, [created], []);
  await invalidateRuleSet(store, created.workflow_id);
  return created;
}

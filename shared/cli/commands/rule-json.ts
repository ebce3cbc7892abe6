import { proposalPattern } from '../../runs/domain-proposals.ts';
import { type DomainProposal } from '../../records/proposals.ts';
import type { Rule } from '../../records/rule.ts';

/** A rule as `handoff rules --json` prints it: every field on every rule, null where it does not apply. */
export function ruleJson(rule: Rule) {
  return {
    id: rule.id,
    match: rule.match,
    action: rule.action,
    source: rule.source,
    note: rule.note,
    pattern: rule.pattern,
    created_at: rule.created_at,
    workflow_id: rule.workflow_id,
    decision_id: rule.decision_id,
    item_id: rule.item_id,
    superseded_by: rule.superseded_by,
  };
}

/** A proposal as `handoff rules proposals --json` prints it. */
export function proposalJson(p: DomainProposal) {
  return {
    id: p.id,
    workflow_id: p.workflow_id,
    domain: p.domain,
    action: p.action,
    pattern: proposalPattern(p),
    status: p.status,
    evidence: p.evidence,
    rule_id: p.rule_id,
    created_at: p.created_at,
  };
}

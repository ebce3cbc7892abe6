export { ruleJson } from '../../memory/rule-json.ts';
import { proposalPattern } from '../../runs/domain-proposals.ts';
import { type DomainProposal } from '../../records/proposals.ts';

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

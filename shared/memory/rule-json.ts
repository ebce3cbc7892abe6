import type { Rule } from '../records/rule.ts';

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

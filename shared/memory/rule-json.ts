import type { Rule } from '../records/rule.ts';
import { reachOf } from './source-key.ts';

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
    /** The mailbox it describes (null: a rule from before rules belonged to sources, or one you set). */
    source_key: rule.source_key,
    /** Where it applies: every workflow reading `source_key`, only `workflow_id`, or every workflow. */
    scope: reachOf(rule).kind,
    decision_id: rule.decision_id,
    item_id: rule.item_id,
    superseded_by: rule.superseded_by,
  };
}

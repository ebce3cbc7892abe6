import type { Rule } from '../records/rule.ts';
import { NEVER_FIRED, type RuleFires } from './rule-fires.ts';
import { reachOf } from './source-key.ts';

/**
 * A rule as `handoff rules --json` prints it: every field on every rule, null where it does not
 * apply; `fires`: how often it fired and when last (memory/rule-fires.ts).
 */
export function ruleJson(rule: Rule, fires: RuleFires = NEVER_FIRED) {
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
    /** How many items it decided, in every run so far. */
    fired: fires.fired,
    /** When it last decided one (null: never). */
    last_fired_at: fires.last_fired_at,
  };
}

import type { Decision } from './records.ts';

/** One pending decision as `handoff pending --json` and `GET /api/pending` print it. */
export interface PendingJson {
  decision_id: string;
  run_id: string;
  interrupt_id: string;
  workflow_id: string;
  item_id: string;
  sender: string;
  subject: string;
  suggested_action: string;
  confidence: number;
  reasoning: string;
  options: string[];
}

/** The public view of a decision: the fields a person (or script) needs to answer it. */
export function toPendingJson(d: Decision): PendingJson {
  return {
    decision_id: d.id,
    run_id: d.run_id,
    interrupt_id: d.interrupt_id,
    workflow_id: d.workflow_id,
    item_id: d.item_id,
    sender: d.sender,
    subject: d.subject,
    suggested_action: d.suggested_action,
    confidence: d.confidence,
    reasoning: d.reasoning,
    options: d.options,
  };
}

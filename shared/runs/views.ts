import type { Decision, Run, RunCounts } from './records.ts';

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

/** What `handoff run --json` and `GET /api/runs/:id` print. */
export interface RunSummary {
  run_id: string;
  status: 'running' | 'waiting' | 'completed' | 'skipped' | 'failed';
  acted: number;
  /** Items a rule decided (an action or skip): the audit's `decided_by: memory` entries. */
  by_memory: number;
  deferred: number;
  interrupt_id: string | null;
}

/** A run as other systems see it. */
export function summarise(run: Run): RunSummary {
  return {
    run_id: run.id,
    status: run.status,
    acted: run.counts.acted,
    by_memory: run.counts.by_your_rules + run.counts.by_learned_rules,
    deferred: run.counts.deferred,
    interrupt_id: run.interrupt_id,
  };
}

/** One line a person reads about a run's counts. */
export function describeCounts(counts: RunCounts): string {
  const memory = counts.by_your_rules + counts.by_learned_rules;
  return `${counts.acted} acted (${counts.confident} confident, ${memory} from rules), ${counts.deferred} asked, ${counts.declined} declined${
    counts.failed ? `, ${counts.failed} failed` : ''
  }`;
}

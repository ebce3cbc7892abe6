/**
 * The rows the CLI's `--json` lists print and the API's lists return (one shape each, here):
 * `handoff runs` / `GET /api/runs`, `handoff audit` / `GET /api/audit`, and a decision,
 * waiting or answered, for `GET /api/decisions`.
 */
import type { AuditEntry } from '../records/audit.ts';
import type { Decision, Run } from '../records/runs.ts';
import { toPendingJson } from './views.ts';

/** A run as `handoff runs --json` prints it. */
export function runRowJson(r: Run) {
  return {
    run_id: r.id,
    workflow_id: r.workflow_id,
    status: r.status,
    started_at: r.started_at,
    finished_at: r.finished_at,
  };
}

/** An audit entry as `handoff audit --json` prints it. */
export function auditRowJson(e: AuditEntry) {
  return {
    run_id: e.run_id,
    item_id: e.item_id,
    outcome: e.outcome,
    action: e.action,
    decided_by: e.decided_by,
    confidence: e.confidence,
    note: e.note,
    at: e.at,
    // Only for runs with specialists: who handled the item, and each handoff's pair.
    ...(e.agent !== undefined ? { agent: e.agent } : {}),
    ...(e.handoff !== undefined ? { handoff: e.handoff } : {}),
  };
}

/** A decision as `handoff pending --json` prints it, with its status and answer (null while it waits). */
export function decisionRowJson(d: Decision) {
  return {
    ...toPendingJson(d),
    status: d.status,
    answer: d.answer
      ? {
          action: d.answer.action,
          note: d.answer.note,
          once: d.answer.once === true,
          by: d.answer.by,
          at: d.answer.at,
        }
      : null,
    created_at: d.created_at,
  };
}

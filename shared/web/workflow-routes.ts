/**
 * What the workflow routes (workflow-api.ts, the Workflows page) tell of a change, and the
 * summary they answer with. A change is announced to a `WorkflowChangeListener` (on AWS: a
 * `handoff.workflow` event, which keeps the workflow's EventBridge schedule in step).
 */
import type { Workflow } from '../workflows/schema.ts';

export type WorkflowChange = 'saved' | 'removed';
/** Told after a workflow was saved or removed; a failure fails the request (PUT/DELETE may be retried). */
export type WorkflowChangeListener = (
  workflowId: string,
  change: WorkflowChange,
  workspace: string,
) => Promise<void>;

/** A workflow as `GET /api/workflows` lists it. */
export interface WorkflowSummary {
  id: string;
  name: string;
  trigger: Workflow['trigger'];
}

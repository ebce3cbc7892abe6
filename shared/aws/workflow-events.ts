import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { WorkflowChange, WorkflowChangeListener } from '../web/workflow-routes.ts';
import { EVENT_SOURCE, putEntries } from './eventbridge-dispatcher.ts';

/** A workflow was saved or removed through the API: detail `{workflow_id, change}`. */
export const WORKFLOW_DETAIL_TYPE = 'handoff.workflow';

export interface WorkflowDetail {
  workflow_id: string;
  change: WorkflowChange;
}

/** A change listener for the workflow routes that puts a `handoff.workflow` event on the bus. */
export function workflowEvents(client: EventBridgeClient, busName: string): WorkflowChangeListener {
  return async (workflowId, change) => {
    const detail: WorkflowDetail = { workflow_id: workflowId, change };
    await putEntries(client, [
      {
        EventBusName: busName,
        Source: EVENT_SOURCE,
        DetailType: WORKFLOW_DETAIL_TYPE,
        Detail: JSON.stringify(detail),
      },
    ]);
  };
}

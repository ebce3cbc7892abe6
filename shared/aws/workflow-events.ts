import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { ChatTurnSender } from '../web/chat-api-routes.ts';
import type { WorkflowChangeListener } from '../web/workflow-routes.ts';
import { putEntries } from './eventbridge-dispatcher.ts';
import type { ClientRef } from './lazy-client.ts';
import {
  CHAT_TURN_DETAIL_TYPE,
  EVENT_SOURCE,
  WORKFLOW_DETAIL_TYPE,
  type WorkflowDetail,
} from './lambda-events.ts';

export { WORKFLOW_DETAIL_TYPE, type WorkflowDetail } from './lambda-events.ts';

/** A change listener for the workflow routes that puts a `handoff.workflow` event on the bus. */
export function workflowEvents(
  client: ClientRef<EventBridgeClient>,
  busName: string,
): WorkflowChangeListener {
  return async (workflowId, change, workspace) => {
    const detail: WorkflowDetail = { workflow_id: workflowId, change, workspace };
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

/** Sends an assistant turn the API accepted to the agent function: a `handoff.chat-turn` event. */
export function chatTurnEvents(client: ClientRef<EventBridgeClient>, busName: string): ChatTurnSender {
  return async (turn) => {
    await putEntries(client, [
      {
        EventBusName: busName,
        Source: EVENT_SOURCE,
        DetailType: CHAT_TURN_DETAIL_TYPE,
        Detail: JSON.stringify(turn),
      },
    ]);
  };
}

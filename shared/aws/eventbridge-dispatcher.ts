import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { HandoffError } from '../errors/index.ts';
import { clientOf, type ClientRef } from './lazy-client.ts';
import type { Dispatcher } from '../runs/dispatch.ts';
import {
  CARRY_DETAIL_TYPE,
  EVENT_SOURCE,
  LEARN_DETAIL_TYPE,
  STEP_DETAIL_TYPE,
  type StepDetail,
} from './lambda-events.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';
import { needs } from '../config/needs.ts';
import { plural } from '../text/plural.ts';

needs('bus'); // events:PutEvents on EVENT_BUS_NAME

export { EVENT_SOURCE, STEP_DETAIL_TYPE, type StepDetail } from './lambda-events.ts';

/** Puts entries on the bus; a rejected entry (FailedEntryCount > 0) throws, so nothing is dropped silently. */
export async function putEntries(
  client: ClientRef<EventBridgeClient>,
  entries: PutEventsRequestEntry[],
): Promise<void> {
  const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
  const out = await (await clientOf(client)).send(new PutEventsCommand({ Entries: entries }));
  if ((out.FailedEntryCount ?? 0) > 0) {
    const failed = out.Entries?.find((e) => e.ErrorCode !== undefined);
    throw new HandoffError(
      `EventBridge refused ${plural(out.FailedEntryCount ?? 0, 'event')} on ${entries[0]?.EventBusName ?? 'the bus'}: ${failed?.ErrorCode ?? 'unknown'} ${failed?.ErrorMessage ?? ''}`.trim(),
    );
  }
}

/** Dispatch mode on AWS: each step becomes a `handoff.step` event that a rule routes to the node's function. */
export class EventBridgeDispatcher implements Dispatcher {
  constructor(
    private readonly client: ClientRef<EventBridgeClient>,
    private readonly busName: string,
    /** The workspace of the runs this dispatcher moves: the next function works in it too. */
    private readonly workspace: string = DEFAULT_WORKSPACE,
  ) {}

  async dispatch(step: StepDetail): Promise<void> {
    const detail: StepDetail = { run_id: step.run_id, node: step.node, workspace: this.workspace };
    await putEntries(this.client, [
      {
        EventBusName: this.busName,
        Source: EVENT_SOURCE,
        DetailType: STEP_DETAIL_TYPE,
        Detail: JSON.stringify(detail),
      },
    ]);
  }

  /** Learning from an answer becomes a `handoff.learn` event for the agent function (model calls stay off the API). */
  async learn(work: { decision_id: string }): Promise<void> {
    await putEntries(this.client, [
      {
        EventBusName: this.busName,
        Source: EVENT_SOURCE,
        DetailType: LEARN_DETAIL_TYPE,
        Detail: JSON.stringify({ decision_id: work.decision_id, workspace: this.workspace }),
      },
    ]);
  }

  /** An answer to carry out while its run waits becomes a `handoff.carry` event for the resume function. */
  async carry(work: { decision_id: string }): Promise<void> {
    await putEntries(this.client, [
      {
        EventBusName: this.busName,
        Source: EVENT_SOURCE,
        DetailType: CARRY_DETAIL_TYPE,
        Detail: JSON.stringify({ decision_id: work.decision_id, workspace: this.workspace }),
      },
    ]);
  }
}

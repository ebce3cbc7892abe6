/** EventBridge `handoff.workflow` {workflow_id, change} → the workflow's EventBridge schedule follows. */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { storeForLambda } from '../shared/aws/dynamo-client.ts';
import type { WorkflowDetail } from '../shared/aws/lambda-events.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { schedulerClient, scheduleTargetOf, syncWorkflowSchedule } from '../shared/aws/schedule-sync.ts';
import type { Store } from '../shared/store/store.ts';

const observed = observability('schedule-sync');
const env = lambdaEnvFor('schedule-sync');
const stores = new Map<string, Store>();
/** Each workspace's store, made once per container. */
const storeOf = (workspace: string): Store => {
  let store = stores.get(workspace);
  if (!store) stores.set(workspace, (store = storeForLambda(env, undefined, workspace)));
  return store;
};
const scheduler = schedulerClient(env.AWS_REGION);
const target = scheduleTargetOf(env);

export const handler = middy<EventBridgeEvent<'handoff.workflow', WorkflowDetail>>()
  .use(observed.middlewares)
  .handler((event) => syncWorkflowSchedule(storeOf, scheduler, target, event));

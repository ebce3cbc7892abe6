/**
 * The on-failure destination of the step functions and schedule-sync: a step whose retries
 * ran out marks its run failed with the reason, in the run's workspace, and tells the person;
 * a schedule sync that gave up is told too; anything else is logged. Never lost.
 */
import middy from '@middy/core';
import { lambdaClients, storeForLambda } from '../shared/aws/clients.ts';
import { failureNoticesForLambda } from '../shared/aws/lambda-notices.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { recordStepFailure, type FailureResult } from '../shared/aws/step-failure.ts';
import { emitIn } from '../shared/events/feed.ts';
import type { FailureNoticeDeps } from '../shared/runs/failure-notice.ts';

const observed = observability('step-failed');
const env = lambdaEnvFor('step-failed');
const clients = lambdaClients(env);
const deps = new Map<string, FailureNoticeDeps>();
/** Each workspace's store and links, made once per container. */
const depsOf = (workspace: string): FailureNoticeDeps => {
  let d = deps.get(workspace);
  if (!d)
    deps.set(
      workspace,
      (d = {
        store: storeForLambda(env, clients.dynamodb, workspace),
        emit: emitIn(workspace),
        ...failureNoticesForLambda('step-failed', env, clients, workspace),
      }),
    );
  return d;
};

export const handler = middy<unknown, FailureResult>()
  .use(observed.middlewares)
  .handler((event) => recordStepFailure(depsOf, event));

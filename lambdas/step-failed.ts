/**
 * The on-failure destination of the step functions: a step whose retries ran out marks
 * its run failed with the reason and tells the person; anything else is logged. Never lost.
 */
import middy from '@middy/core';
import { lambdaClients, storeForLambda } from '../shared/aws/clients.ts';
import { failureNoticesForLambda } from '../shared/aws/lambda-notices.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { recordStepFailure, type FailureResult } from '../shared/aws/step-failure.ts';
import { emit } from '../shared/events/feed.ts';

const observed = observability('step-failed');
const env = lambdaEnvFor('step-failed');
const clients = lambdaClients(env);
const deps = {
  store: storeForLambda(env, clients.dynamodb),
  emit,
  ...failureNoticesForLambda('step-failed', env, clients),
};

export const handler = middy<unknown, FailureResult>()
  .use(observed.middlewares)
  .handler((event) => recordStepFailure(deps, event));

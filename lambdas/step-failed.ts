/**
 * The on-failure destination of the step functions: a step whose retries ran out marks
 * its run failed with the reason; anything else is logged. Never lost.
 */
import middy from '@middy/core';
import { storeForLambda } from '../shared/aws/dynamo-client.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { recordStepFailure, type FailureResult } from '../shared/aws/step-failure.ts';
import { emit } from '../shared/events/feed.ts';

const env = lambdaEnvFor('step-failed');
const deps = { store: storeForLambda(env), emit };

export const handler = middy<unknown, FailureResult>().handler((event) => recordStepFailure(deps, event));

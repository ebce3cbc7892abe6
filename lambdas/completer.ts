/** EventBridge `handoff.step` {run_id, node: 'completer'} → the run's completer step. */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { lambdaClients } from '../shared/aws/clients.ts';
import type { StepDetail } from '../shared/aws/lambda-events.ts';
import { lambdaEngines } from '../shared/aws/lambda-engine.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { stepHandler, type StepResult } from '../shared/aws/lambda-handlers.ts';

const observed = observability('completer');
const env = lambdaEnvFor('completer');
const engineOf = lambdaEngines('completer', env, lambdaClients(env));

export const handler = middy<EventBridgeEvent<'handoff.step', StepDetail>, StepResult>()
  .use(observed.middlewares)
  .handler(stepHandler(engineOf, 'completer'));

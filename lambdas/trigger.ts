/** EventBridge Scheduler → a scheduled run: the trigger node runs here, the executor step is dispatched. */
import middy from '@middy/core';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines } from '../shared/aws/lambda-engine.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { triggerScheduledRun, type TriggerResult } from '../shared/aws/lambda-handlers.ts';
import type { ScheduleInput } from '../shared/aws/schedule-sync.ts';

const observed = observability('trigger');
const env = lambdaEnvFor('trigger');
const engineOf = lambdaEngines(env, lambdaClients(env));

export const handler = middy<ScheduleInput, TriggerResult>()
  .use(observed.middlewares)
  .handler((event) => triggerScheduledRun(engineOf, event));

/** EventBridge Scheduler → a scheduled run: the trigger node runs here, the executor step is dispatched. */
import middy from '@middy/core';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines } from '../shared/aws/lambda-engine.ts';
import { kmsCredentials } from '../shared/credentials/open-credentials.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { triggerScheduledRun, type TriggerResult } from '../shared/aws/lambda-handlers.ts';
import type { ScheduleInput } from '../shared/aws/schedule-sync.ts';

const observed = observability('trigger');
const env = lambdaEnvFor('trigger');
// The trigger checks the source for new mail: it opens the mailbox's credential.
const engineOf = lambdaEngines('trigger', env, lambdaClients(env), {
  credentials: kmsCredentials(env.AWS_REGION),
});

export const handler = middy<ScheduleInput, TriggerResult>()
  .use(observed.middlewares)
  .handler((event) => triggerScheduledRun(engineOf, event));

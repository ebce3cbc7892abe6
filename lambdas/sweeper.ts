/** Every few minutes (EventBridge schedule): expire overdue decisions, re-send lost dispatches, sync schedules. */
import middy from '@middy/core';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines, lambdaPlatform } from '../shared/aws/lambda-engine.ts';
import { linkKeyFor } from '../shared/aws/secret-link-key.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { sweepRuns, type SweeperResult } from '../shared/aws/lambda-handlers.ts';
import { reconcileSchedules } from '../shared/aws/schedule-reconcile.ts';
import { schedulerClient, scheduleTargetOf } from '../shared/aws/schedule-sync.ts';

const observed = observability('sweeper');
const env = lambdaEnvFor('sweeper');
const clients = lambdaClients(env);
// Notices held over quiet hours go out from here, with their signed links.
const engineOf = lambdaEngines('sweeper', env, clients, { linkKey: linkKeyFor(env, clients) });
const platform = lambdaPlatform(env, clients, engineOf);
const scheduler = schedulerClient(env.AWS_REGION);
const target = scheduleTargetOf(env);

export const handler = middy<unknown, SweeperResult>()
  .use(observed.middlewares)
  .handler(() =>
    sweepRuns(platform, (store, workspace) => reconcileSchedules(store, scheduler, target, workspace)),
  );

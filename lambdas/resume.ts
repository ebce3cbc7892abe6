/** EventBridge `handoff.step` {run_id, node: 'resume'} → the run's resume step; `handoff.carry` {decision_id} → that answer carried out while the run waits. */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines } from '../shared/aws/lambda-engine.ts';
import { linkKeyFor } from '../shared/aws/secret-link-key.ts';
import { kmsCredentials } from '../shared/credentials/open-credentials.ts';
import { modelFactory } from '../shared/models/provider.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { resumeHandler, type ResumeResult } from '../shared/aws/lambda-handlers.ts';

const observed = observability('resume');
const env = lambdaEnvFor('resume');
const clients = lambdaClients(env);
// Runs agents (the model), acts through integrations (credentials) and may pause (signed links).
const engineOf = lambdaEngines('resume', env, clients, {
  models: modelFactory(env.HANDOFF_MODEL_PROVIDER),
  credentials: kmsCredentials(env.AWS_REGION),
  linkKey: linkKeyFor(env, clients),
});

export const handler = middy<EventBridgeEvent<'handoff.step' | 'handoff.carry', unknown>, ResumeResult>()
  .use(observed.middlewares)
  .handler(resumeHandler(engineOf));

/** API Gateway (HTTP API) → the Handoff app: decision pages (signed links), `/api/*` (API keys the app checks), `/admin/api/*` (IAM callers). */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines, lambdaPlatform } from '../shared/aws/lambda-engine.ts';
import { linkKeyFor } from '../shared/aws/secret-link-key.ts';
import { needs } from '../shared/config/needs.ts';
import { kmsCredentials } from '../shared/credentials/open-credentials.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { lambdaWebApp, lambdaWebHandler } from '../shared/aws/lambda-web.ts';
import { SecretValue } from '../shared/aws/secret-value.ts';
import { chatTurnEvents, workflowEvents } from '../shared/aws/workflow-events.ts';
import { DEFAULT_WORKSPACE } from '../shared/workspaces/names.ts';

const observed = observability('api');
const env = lambdaEnvFor('api');
const clients = lambdaClients(env);
const linkKey = linkKeyFor(env, clients);
// No model here: learning and assistant turns go to the agent function. A manual run's trigger
// and "Check source" open the source's credential.
const engineOf = lambdaEngines('api', env, clients, { linkKey, credentials: kmsCredentials(env.AWS_REGION) });
const engine = engineOf(DEFAULT_WORKSPACE);
const platform = lambdaPlatform(env, clients, engineOf);
needs('apiKey'); // the event feed's bearer key, API_KEY_SECRET_ARN
const apiKey = new SecretValue(clients.secrets, env.API_KEY_SECRET_ARN);
const onWorkflowChange = workflowEvents(clients.eventBridge, env.EVENT_BUS_NAME);
const sendChatTurn = chatTurnEvents(clients.eventBridge, env.EVENT_BUS_NAME);
const { app, launcher } = lambdaWebApp({ engine, platform, env, linkKey, onWorkflowChange, sendChatTurn });

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observed.middlewares)
  .before(async () => {
    env.HANDOFF_API_KEY ??= await apiKey.get(); // once per container
  })
  .handler(lambdaWebHandler(app, launcher));

/** API Gateway (HTTP API) `POST /hooks/:workflowId` → the same app, with the webhook secret from Secrets Manager. */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines, lambdaPlatform, noLinkKey, type EngineParts } from '../shared/aws/lambda-engine.ts';
import { needs } from '../shared/config/needs.ts';
import { kmsCredentials } from '../shared/credentials/open-credentials.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { lambdaWebApp, lambdaWebHandler } from '../shared/aws/lambda-web.ts';
import { SecretValue } from '../shared/aws/secret-value.ts';
import { workflowEvents } from '../shared/aws/workflow-events.ts';
import { DEFAULT_WORKSPACE } from '../shared/workspaces/names.ts';

const observed = observability('webhook');
const env = lambdaEnvFor('webhook');
const clients = lambdaClients(env);
// A workflow's own webhook secret and its source's password are credentials.
const parts: EngineParts = { credentials: kmsCredentials(env.AWS_REGION) };
const engineOf = lambdaEngines('webhook', env, clients, parts);
const engine = engineOf(DEFAULT_WORKSPACE);
const platform = lambdaPlatform(env, clients, engineOf);
needs('webhookSecret'); // the shared webhook HMAC key, WEBHOOK_SECRET_ARN
const webhookSecret = new SecretValue(clients.secrets, env.WEBHOOK_SECRET_ARN);
const onWorkflowChange = workflowEvents(clients.eventBridge, env.EVENT_BUS_NAME);
// The webhook route serves no decision page: no link is signed or checked here.
const linkKey = noLinkKey('webhook');
const { app, launcher } = lambdaWebApp({ engine, platform, env, linkKey, onWorkflowChange });

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observed.middlewares)
  .before(async () => {
    env.HANDOFF_WEBHOOK_SECRET ??= await webhookSecret.get(); // once per container
  })
  .handler(lambdaWebHandler(app, launcher));

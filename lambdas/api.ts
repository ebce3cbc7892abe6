/** API Gateway (HTTP API) → the Handoff app: decision pages (signed links), `/api/*` (IAM at the gateway). */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaClients } from '../shared/aws/clients.ts';
import { engineForLambda, linkKeyFor } from '../shared/aws/lambda-engine.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { lambdaWebApp, lambdaWebHandler } from '../shared/aws/lambda-web.ts';
import { SecretValue } from '../shared/aws/secret-value.ts';
import { workflowEvents } from '../shared/aws/workflow-events.ts';

const observed = observability('api');
const env = lambdaEnvFor('api');
const clients = lambdaClients(env);
const linkKey = linkKeyFor(env, clients);
const engine = engineForLambda(env, clients, linkKey);
const apiKey = new SecretValue(clients.secrets, env.API_KEY_SECRET_ARN);
const onWorkflowChange = workflowEvents(clients.eventBridge, env.EVENT_BUS_NAME);
const { app, launcher } = lambdaWebApp({ engine, env, linkKey, onWorkflowChange });

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observed.middlewares)
  .before(async () => {
    env.HANDOFF_API_KEY ??= await apiKey.get(); // once per container
  })
  .handler(lambdaWebHandler(app, launcher));

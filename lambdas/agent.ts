/**
 * EventBridge `handoff.learn` {decision_id} and `handoff.chat-turn` {chat_id, turn_id, message}
 * → model work off the request path: learning from an answer, an assistant turn.
 */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { runAgentWork, type AgentWorkResult } from '../shared/aws/agent-work.ts';
import { lambdaClients } from '../shared/aws/clients.ts';
import { lambdaEngines } from '../shared/aws/lambda-engine.ts';
import { lambdaEnvFor } from '../shared/aws/lambda-env.ts';
import { observability } from '../shared/aws/observability.ts';
import { kmsCredentials } from '../shared/credentials/open-credentials.ts';
import { modelFactory } from '../shared/models/provider.ts';

const observed = observability('agent');
const env = lambdaEnvFor('agent');
// The model, and credentials for what a turn may do: preview a source, start a run.
const engineOf = lambdaEngines('agent', env, lambdaClients(env), {
  models: modelFactory(env.HANDOFF_MODEL_PROVIDER),
  credentials: kmsCredentials(env.AWS_REGION),
});

export const handler = middy<EventBridgeEvent<string, unknown>, AgentWorkResult>()
  .use(observed.middlewares)
  .handler((event) => runAgentWork(engineOf, event));

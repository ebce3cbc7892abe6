/**
 * The AWS clients of a Lambda container: made once (module scope of a handler), reused by
 * every invocation. DynamoDB (every invocation reads the store) loads with the handler;
 * the others load their SDK package on first use, so a cold start imports only what the
 * function uses at once.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { regionOption } from '../config/aws-region.ts';
import { dynamoClient, type ClientEnv } from './dynamo-client.ts';
import { onFirstUse } from './lazy-client.ts';

export { dynamoClient, storeForLambda } from './dynamo-client.ts';

/** The clients the engine's functions use. */
export interface LambdaClients {
  dynamodb: DynamoDBClient;
  eventBridge: () => Promise<EventBridgeClient>;
  sns: () => Promise<SNSClient>;
  secrets: () => Promise<SecretsManagerClient>;
}

let engineClients: LambdaClients | undefined;

/** The container's clients for the engine (created once; they connect, and all but DynamoDB load, on first use). */
export function lambdaClients(env: ClientEnv): LambdaClients {
  const region = regionOption(env.AWS_REGION);
  engineClients ??= {
    dynamodb: dynamoClient(env),
    eventBridge: onFirstUse(
      async () => new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(region),
    ),
    sns: onFirstUse(async () => new (await import('@aws-sdk/client-sns')).SNSClient(region)),
    secrets: onFirstUse(
      async () => new (await import('@aws-sdk/client-secrets-manager')).SecretsManagerClient(region),
    ),
  };
  return engineClients;
}

/**
 * The AWS clients of a Lambda container: made once (module scope of a handler), reused by
 * every invocation. Split by need so a small function loads only the SDK clients it uses.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { regionOption } from '../config/aws-region.ts';
import { dynamoClient, type ClientEnv } from './dynamo-client.ts';

export { dynamoClient, storeForLambda } from './dynamo-client.ts';

/** The clients the engine's functions use. */
export interface LambdaClients {
  dynamodb: DynamoDBClient;
  eventBridge: EventBridgeClient;
  sns: SNSClient;
  secrets: SecretsManagerClient;
}

let engineClients: LambdaClients | undefined;

/** The container's clients for the engine (created once; they connect lazily). */
export function lambdaClients(env: ClientEnv): LambdaClients {
  const region = regionOption(env.AWS_REGION);
  engineClients ??= {
    dynamodb: dynamoClient(env),
    eventBridge: new EventBridgeClient(region),
    sns: new SNSClient(region),
    secrets: new SecretsManagerClient(region),
  };
  return engineClients;
}

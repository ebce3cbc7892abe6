import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Env } from '../config/env.ts';

/** The AWS clients a Lambda function uses; made once per container, injected everywhere. */
export interface LambdaClients {
  dynamodb: DynamoDBClient;
  eventBridge: EventBridgeClient;
  sns: SNSClient;
  scheduler: SchedulerClient;
  secrets: SecretsManagerClient;
}

let shared: LambdaClients | undefined;

/**
 * The container's clients, created on first call (module scope of a handler) and reused
 * by every invocation; clients connect lazily, so unused ones cost nothing. DynamoDB goes
 * to DYNAMODB_ENDPOINT when set (dynalite, DynamoDB Local) with placeholder credentials.
 */
export function lambdaClients(env: Pick<Env, 'AWS_REGION' | 'DYNAMODB_ENDPOINT'>): LambdaClients {
  if (shared) return shared;
  const region = env.AWS_REGION;
  shared = {
    dynamodb: new DynamoDBClient({
      region,
      ...(env.DYNAMODB_ENDPOINT
        ? {
            endpoint: env.DYNAMODB_ENDPOINT,
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          }
        : {}),
    }),
    eventBridge: new EventBridgeClient({ region }),
    sns: new SNSClient({ region }),
    scheduler: new SchedulerClient({ region }),
    secrets: new SecretsManagerClient({ region }),
  };
  return shared;
}

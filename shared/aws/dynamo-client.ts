/** The container's DynamoDB client and store (the only AWS client the smallest functions load). */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Env } from '../config/env.ts';
import { createDocumentClient, DynamoDbStore, newDynamoClient } from '../store/dynamodb-store.ts';
import type { Store } from '../store/store.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';
import { needs } from '../config/needs.ts';

needs('table'); // DynamoDB item reads and writes on HANDOFF_TABLE

export type ClientEnv = Pick<Env, 'AWS_REGION' | 'DYNAMODB_ENDPOINT'>;

let dynamo: DynamoDBClient | undefined;

/**
 * The container's DynamoDB client: DYNAMODB_ENDPOINT when set (dynalite, DynamoDB Local,
 * with placeholder credentials), else the region's endpoint and the default credentials.
 */
export function dynamoClient(env: ClientEnv): DynamoDBClient {
  dynamo ??= newDynamoClient(env);
  return dynamo;
}

/** The deployment's DynamoDB store (table HANDOFF_TABLE) of one workspace over the container's client. */
export function storeForLambda(
  env: ClientEnv & Pick<Env, 'HANDOFF_TABLE'>,
  client: DynamoDBClient = dynamoClient(env),
  workspace: string = DEFAULT_WORKSPACE,
): Store {
  return new DynamoDbStore(createDocumentClient(client), env.HANDOFF_TABLE, { workspace });
}

/**
 * Adds to an existing table the global indexes TABLE_SCHEMA has and the table lacks (a table
 * made before the by-time index), one at a time as DynamoDB requires, waiting until each is
 * ACTIVE. `handoff store migrate` runs it; the CDK stack adds them on deploy.
 */
import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HandoffError } from '../errors/index.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

const INDEX_WAIT_MS = 600_000;

/** The names of the indexes added (none when the table had them all). */
export async function addMissingIndexes(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const added: string[] = [];
  for (const index of TABLE_SCHEMA.indexes) {
    if ((await indexStatuses(client, tableName)).has(index.name)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.partitionKey, KeyType: 'HASH' },
                { AttributeName: index.sortKey, KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    );
    const deadline = Date.now() + INDEX_WAIT_MS;
    let delay = 50;
    while ((await indexStatuses(client, tableName)).get(index.name) !== 'ACTIVE') {
      if (Date.now() >= deadline)
        throw new HandoffError(`The ${index.name} index of ${tableName} did not become ACTIVE in time.`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5_000);
    }
    added.push(index.name);
  }
  return added;
}

async function indexStatuses(client: DynamoDBClient, tableName: string): Promise<Map<string, string>> {
  const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return new Map(
    (out.Table?.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName ?? '', i.IndexStatus ?? 'ACTIVE']),
  );
}

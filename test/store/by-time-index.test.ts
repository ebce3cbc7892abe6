/**
 * A DynamoDB table made before the by-time index: the newest-first lists still work (read the
 * older way, whole), `addMissingIndexes` adds the index, and the keys step of `handoff store
 * migrate` writes the settled history into it, after which a page reads only what it shows.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import { addMissingIndexes } from '../../shared/store/dynamodb-indexes.ts';
import { createDocumentClient, DynamoDbStore } from '../../shared/store/dynamodb-store.ts';
import { TABLE_SCHEMA, TIME_INDEX } from '../../shared/store/table-schema.ts';
import { commitAll, listNewest } from '../../shared/store/store.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { dynaliteClient } from '../support/dynalite.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';
import { watchRequests } from '../support/store-spy.ts';

// DynamoDB Local, not dynalite: adding an index to an on-demand table is as on AWS only there.
describe('a DynamoDB table made before the by-time index (DynamoDB Local)', () => {
  let dynamodb: Awaited<ReturnType<typeof startDynamoDbLocal>>;
  let client: DynamoDBClient;
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
    client = dynaliteClient(dynamodb.endpoint);
  });
  afterAll(async () => {
    client.destroy();
    await dynamodb.stop();
  });

  it('lists the latest answers the older way, then by the index once migrated', async () => {
    // Prepare: the table as `store init` made it before the index, and three answers in it.
    const table = `handoff-old-${randomUUID()}`;
    const older = TABLE_SCHEMA.indexes.filter((i) => i.name !== TIME_INDEX.name);
    const keys = (k: { partitionKey: string; sortKey: string }) => [
      { AttributeName: k.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: k.sortKey, KeyType: 'RANGE' as const },
    ];
    await client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: ['pk', 'sk', ...older.flatMap((i) => [i.partitionKey, i.sortKey])].map(
          (name) => ({
            AttributeName: name,
            AttributeType: 'S',
          }),
        ),
        KeySchema: keys(TABLE_SCHEMA),
        GlobalSecondaryIndexes: older.map((i) => ({
          IndexName: i.name,
          KeySchema: keys(i),
          Projection: { ProjectionType: 'ALL' },
        })),
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const store = new DynamoDbStore(createDocumentClient(client), table);
    const answers = [0, 1, 2].map((i) =>
      answeredDecision({
        action: 'archive',
        id: `dec_old_${i}`,
        answer: {
          action: 'archive',
          note: null,
          by: 'human',
          at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        },
      }),
    );
    await commitAll(
      store,
      answers.map((record) => ({ kind: 'put' as const, collection: 'decisions' as const, record })),
    );

    // Act and assess: without the index, the latest answers are still right.
    expect((await listNewest(store, 'decisions', { limit: 2 })).items.map((d) => d.id)).toEqual([
      'dec_old_2',
      'dec_old_1',
    ]);
    expect(await addMissingIndexes(client, table)).toEqual([TIME_INDEX.name]);
    expect(await addMissingIndexes(client, table)).toEqual([]); // once
    await migrateKeys(store);
    const sent = watchRequests(client);
    const page = await listNewest(store, 'decisions', { limit: 2 });
    expect(page.items.map((d) => d.id)).toEqual(['dec_old_2', 'dec_old_1']);
    expect(sent).toEqual([expect.objectContaining({ command: 'QueryCommand', limit: 3 })]);
  });
});

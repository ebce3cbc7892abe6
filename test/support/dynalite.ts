import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynaliteClient, startDynalite } from './dynalite-server.ts';

export { dynaliteClient, startDynalite };
import { afterAll, beforeAll } from '@jest/globals';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';

/**
 * One dynalite for the test file: started before its tests, stopped after them.
 * Returns a maker of DynamoDB stores, each on a fresh table named `<prefix>-<uuid>`.
 */
export function dynaliteTables(prefix: string): () => Promise<DynamoDbStore> {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynaliteClient(dynalite.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await dynalite?.stop();
  });
  return async () => {
    const table = `${prefix}-${randomUUID()}`;
    await ensureTable(client!, table);
    return new DynamoDbStore(createDocumentClient(client!), table);
  };
}

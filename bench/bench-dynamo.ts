/**
 * The engine bench's DynamoDB variant: the parent starts one dynalite (as the tests'
 * support/dynalite.ts does), so the store is another process to the measured child, as
 * DynamoDB is to a Lambda; each child run gets a fresh table and drops it after.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { dynaliteClient, startDynalite } from '../test/support/dynalite-server.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../shared/store/dynamodb-store.ts';

/** Starts an in-memory dynalite on 127.0.0.1 and a free port; `stop` closes it. */
export const startDynaliteServer = startDynalite;

/** A DynamoDB store on a fresh table at `endpoint`; `drop` deletes the table and closes the client. */
export async function openBenchTable(
  endpoint: string,
): Promise<{ store: DynamoDbStore; drop(): Promise<void> }> {
  const client = dynaliteClient(endpoint);
  const table = `handoff-bench-${randomUUID()}`;
  await ensureTable(client, table);
  return {
    store: new DynamoDbStore(createDocumentClient(client), table),
    drop: async () => {
      try {
        await client.send(new DeleteTableCommand({ TableName: table }));
      } finally {
        client.destroy();
      }
    },
  };
}

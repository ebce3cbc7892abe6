/**
 * The engine bench's DynamoDB variant: the parent starts one dynalite (as the tests'
 * support/dynalite.ts does), so the store is another process to the measured child, as
 * DynamoDB is to a Lambda; each child run gets a fresh table and drops it after.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../shared/store/dynamodb-store.ts';

type DynaliteOptions = { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number };
// dynalite is CommonJS without type declarations.
const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: DynaliteOptions) => Server;

/** Starts an in-memory dynalite on 127.0.0.1 and a free port; `stop` closes it. */
export async function startDynaliteServer(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A DynamoDB store on a fresh table at `endpoint`; `drop` deletes the table and closes the client. */
export async function openBenchTable(
  endpoint: string,
): Promise<{ store: DynamoDbStore; drop(): Promise<void> }> {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
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

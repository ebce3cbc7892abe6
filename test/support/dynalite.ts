import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from '@jest/globals';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';

type DynaliteOptions = { createTableMs?: number; deleteTableMs?: number; updateTableMs?: number };

// dynalite is CommonJS without type declarations.
const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: DynaliteOptions) => Server;

/**
 * Starts an in-memory dynalite (a DynamoDB emulator) on 127.0.0.1 and a free port.
 * Destroy any SDK clients before `stop()`; open keep-alive sockets are cut anyway.
 */
export async function startDynalite(): Promise<{ endpoint: string; stop(): Promise<void> }> {
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
        // Otherwise close() waits for idle keep-alive connections to time out.
        server.closeAllConnections();
      }),
  };
}

/** A DynamoDB client for a dynalite at `endpoint`, with placeholder credentials; destroy it before `stop()`. */
export function dynaliteClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

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

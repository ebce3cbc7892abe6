/**
 * dynalite (a DynamoDB emulator) on a loopback port, and a client for it: no test-runner
 * imports, so the benches use it too.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

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

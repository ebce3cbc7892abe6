/**
 * A fresh store on either backend a "both stores" suite runs on: JSON files in a temp folder,
 * or a table of its own in a dynalite started for it (its client's requests noted in `sent`).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import type { SentRequest } from './dynamodb-requests.ts';
import { dynaliteClient, startDynalite } from './dynalite.ts';
import { watchRequests } from './store-spy.ts';

export interface BackendStore {
  store: Store;
  /** The temp folder (the JSON files' state directory; on dynalite, only a folder for the fixture). */
  stateDir: string;
  /** On dynalite: its client, the table, and every request the client sent. */
  client?: DynamoDBClient;
  table: string;
  sent: SentRequest[];
  /** Stops dynalite and removes the temp folder. */
  close(): Promise<void>;
}

/** A store on `backend` ('JSON files' or 'dynalite'); `name` names the temp folder and table. */
export async function openBackendStore(backend: string, name: string): Promise<BackendStore> {
  const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), `handoff-${name}-`));
  const removeDir = () => fs.rm(stateDir, { recursive: true, force: true });
  if (backend !== 'dynalite')
    return { store: new JsonFileStore(stateDir), stateDir, table: '', sent: [], close: removeDir };
  const dynalite = await startDynalite();
  const client = dynaliteClient(dynalite.endpoint);
  const sent = watchRequests(client);
  const table = `handoff-${name}-${randomUUID()}`;
  await ensureTable(client, table);
  const store = new DynamoDbStore(createDocumentClient(client), table);
  const close = async () => {
    client.destroy();
    await dynalite.stop();
    await removeDir();
  };
  return { store, stateDir, client, table, sent, close };
}

import { promises as fs } from 'node:fs';
import type { Env } from '../config/env.ts';
import { NotFoundError } from '../errors/index.ts';
import {
  createDocumentClient,
  DynamoDbStore,
  ensureTable,
  newDynamoClient,
  tableStatus,
} from './dynamodb-store.ts';
import { migrateTable, type MigrationReport } from './dynamodb-migrate.ts';
import { addMissingIndexes } from './dynamodb-indexes.ts';
import { JsonFileStore } from './json-file-store.ts';
import type { Store } from './store.ts';
import { workspaceDir } from '../workspaces/layout.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/**
 * The store of one workspace (by id; `_platform` for the platform's own records), as the
 * environment asks: DynamoDB when USE_DYNAMODB is set, else the workspace's JSON files.
 */
export function openStore(env: Env, workspaceId: string = DEFAULT_WORKSPACE): Store {
  if (!env.USE_DYNAMODB) return new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR, workspaceId));
  return new DynamoDbStore(createDocumentClient(newDynamoClient(env)), env.HANDOFF_TABLE, {
    workspace: workspaceId,
  });
}

/**
 * Prepares the configured backend (creates the DynamoDB table or the state
 * directory) and returns one line saying what was done, for `handoff store init`.
 */
export async function initStore(env: Env): Promise<string> {
  if (!env.USE_DYNAMODB) {
    await fs.mkdir(env.HANDOFF_STATE_DIR, { recursive: true, mode: 0o700 });
    return `Using JSON file store in ${env.HANDOFF_STATE_DIR}`;
  }
  const client = newDynamoClient(env);
  try {
    const where = env.DYNAMODB_ENDPOINT ?? env.AWS_REGION ?? "the AWS SDK's default region";
    const result = await ensureTable(client, env.HANDOFF_TABLE);
    return result === 'created'
      ? `Created DynamoDB table ${env.HANDOFF_TABLE} (${where})`
      : `DynamoDB table ${env.HANDOFF_TABLE} already exists (${where})`;
  } finally {
    client.destroy();
  }
}

/**
 * `handoff store migrate`: moves a DynamoDB table written before workspaces into workspace
 * `default` (dynamodb-migrate.ts); resumable and idempotent. Null for the JSON file store,
 * which has no table to migrate. Refuses (NotFoundError) a table that does not exist.
 */
export async function migrateStore(env: Env): Promise<MigrationReport | null> {
  if (!env.USE_DYNAMODB) return null;
  const client = newDynamoClient(env);
  try {
    if ((await tableStatus(client, env.HANDOFF_TABLE)) === undefined) {
      const where = env.DYNAMODB_ENDPOINT ?? env.AWS_REGION ?? "the AWS SDK's default region";
      throw new NotFoundError(
        `DynamoDB table ${env.HANDOFF_TABLE} does not exist (${where}); check HANDOFF_TABLE, or create it with \`handoff store init\`.`,
      );
    }
    const report = await migrateTable(createDocumentClient(client), env.HANDOFF_TABLE);
    await addMissingIndexes(client, env.HANDOFF_TABLE); // before the keys step writes into the by-time index
    return report;
  } finally {
    client.destroy();
  }
}

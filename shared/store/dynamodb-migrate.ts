/**
 * `handoff store migrate` for DynamoDB: moves the items of the layout before workspaces
 * (`pk` = the bare collection name) into the workspace layout (dynamodb-keys.ts), under
 * workspace `default` (the platform collections under `_platform`).
 *
 * Each item is copied first (a put conditional on the new key being free, so nothing newer
 * is ever overwritten), then its old copy deleted. Interrupted anywhere, a second run
 * finds the items still in the old layout and finishes them; once done, a run finds none
 * and writes nothing.
 */
import { DeleteCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isError } from '../errors/index.ts';
import { COLLECTIONS, type Collection } from './store.ts';
import {
  DEFAULT_WORKSPACE,
  PLATFORM_COLLECTIONS,
  PLATFORM_WORKSPACE,
  checkWorkspace,
} from './dynamodb-keys.ts';
import { fromItem, toItem } from './dynamodb-items.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** Items moved side by side; DynamoDB takes many small requests at once well. */
const PARALLEL = 16;

/** What a migration did. */
export interface MigrationReport {
  table: string;
  workspace: string;
  /** Items found in the layout before workspaces. */
  found: number;
  /** Copied into the new layout and removed from the old. */
  moved: number;
  /** Already in the new layout (an interrupted run copied them): only the old copy removed. */
  already_moved: number;
  /** Items whose `pk` names no collection this version knows: left where they are. */
  skipped: number;
}

/** Options of `migrateTable`. */
export interface MigrationOptions {
  /** The workspace the records move into (default `default`). */
  workspace?: string;
}

/**
 * Moves every item of the layout before workspaces into the workspace layout; resumable
 * and idempotent (see the file's comment). Returns the counts.
 */
export async function migrateTable(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: MigrationOptions = {},
): Promise<MigrationReport> {
  const workspace = checkWorkspace(options.workspace ?? DEFAULT_WORKSPACE);
  const report: MigrationReport = {
    table: tableName,
    workspace,
    found: 0,
    moved: 0,
    already_moved: 0,
    skipped: 0,
  };
  let startKey: Record<string, unknown> | undefined;
  do {
    // Every key of the new layout holds '#'; the old one's is a bare collection name.
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'NOT contains(#pk, :separator)',
        ExpressionAttributeNames: { '#pk': TABLE_SCHEMA.partitionKey },
        ExpressionAttributeValues: { ':separator': '#' },
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const items = page.Items ?? [];
    report.found += items.length;
    for (let start = 0; start < items.length; start += PARALLEL) {
      // Every move of the batch ends before a failure is thrown: nothing is left in flight.
      const settled = await Promise.allSettled(
        items.slice(start, start + PARALLEL).map((item) => moveItem(client, tableName, workspace, item)),
      );
      for (const result of settled) if (result.status === 'fulfilled') report[result.value] += 1;
      const failed = settled.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return report;
}

type Outcome = 'moved' | 'already_moved' | 'skipped';

/** Copies one old-layout item into the new layout (unless already there), then deletes the old one. */
async function moveItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  workspace: string,
  item: Record<string, unknown>,
): Promise<Outcome> {
  const collection = item[TABLE_SCHEMA.partitionKey];
  if (!isCollection(collection)) return 'skipped';
  const target = PLATFORM_COLLECTIONS.has(collection) ? PLATFORM_WORKSPACE : workspace;
  let outcome: Outcome = 'moved';
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: toItem(target, collection, fromItem(item)),
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': TABLE_SCHEMA.partitionKey },
      }),
    );
  } catch (error) {
    if (!isError(error) || error.name !== 'ConditionalCheckFailedException') throw error;
    outcome = 'already_moved';
  }
  await client.send(
    new DeleteCommand({
      TableName: tableName,
      Key: {
        [TABLE_SCHEMA.partitionKey]: collection,
        [TABLE_SCHEMA.sortKey]: item[TABLE_SCHEMA.sortKey],
      },
    }),
  );
  return outcome;
}

function isCollection(value: unknown): value is Collection {
  return typeof value === 'string' && (COLLECTIONS as readonly string[]).includes(value);
}

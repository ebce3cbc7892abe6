import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { HandoffError, InvalidInputError, isError } from '../errors/index.ts';
import { localEndpoint, regionOption } from '../config/aws-region.ts';
import type { Env } from '../config/env.ts';
import { log } from '../logging/log.ts';
import {
  isIndexed,
  inIdOrder,
  newestOf,
  sliced,
  type Collection,
  type CommitOptions,
  type JsonRecord,
  type Page,
  type PageRequest,
  type RecordRef,
  type Store,
  type Versioned,
  type Write,
  type WriteResult,
} from './store.ts';
import { DynamoDbCommitter, conditionOf, recordExists, versionConflict } from './dynamodb-commit.ts';
import {
  KEY_ATTRIBUTES,
  RUNS_BY_WORKFLOW_INDEX,
  STATUS_INDEX as STATUS,
  TABLE_SCHEMA,
  TIME_INDEX,
} from './table-schema.ts';
import { fromItem, key, toItem } from './dynamodb-items.ts';
import {
  DEFAULT_WORKSPACE,
  checkWorkspace,
  partitionKeys,
  prefixRange,
  statusPartition,
  timePartition,
  workflowPartition,
} from './dynamodb-keys.ts';

const TABLE_WAIT_MS = 120_000;
const BATCH_GET_KEYS = 100;
const BATCH_GET_RETRIES = 8;

/**
 * The sparse index of records waiting on something: `gsi1pk` = `<workspace>#<collection>#<status>`,
 * `gsi1sk` = when it started, set only for the statuses below. A record leaves the index
 * when its status changes (every write replaces the whole item).
 */
export const STATUS_INDEX = STATUS.name;

/** Wraps a DynamoDBClient with the marshalling this store expects (undefined values dropped, as JSON would). */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * A new DynamoDB client: DYNAMODB_ENDPOINT when set (dynalite, DynamoDB Local, with
 * placeholder credentials), else the region's endpoint and the default credential chain.
 */
export function newDynamoClient(env: Pick<Env, 'AWS_REGION' | 'DYNAMODB_ENDPOINT'>): DynamoDBClient {
  return new DynamoDBClient({
    ...regionOption(env.AWS_REGION),
    ...(env.DYNAMODB_ENDPOINT ? localEndpoint(env.DYNAMODB_ENDPOINT, env.AWS_REGION) : {}),
  });
}

/** Options of a DynamoDbStore. */
export interface DynamoDbStoreOptions {
  /** The workspace every read and write belongs to (default `default`). */
  workspace?: string;
}

/**
 * A Store on one DynamoDB table, scoped to one workspace: every key begins with it
 * (dynamodb-keys.ts: `pk` = `<workspace>#<collection>[#<shard>]`, `sk` = record id), the
 * record's fields alongside. Reads are strongly consistent so read-then-update works.
 */
export class DynamoDbStore implements Store {
  /** The workspace this store reads and writes. */
  readonly workspace: string;
  private readonly committer: DynamoDbCommitter;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: DynamoDbStoreOptions = {},
  ) {
    this.workspace = checkWorkspace(options.workspace ?? DEFAULT_WORKSPACE);
    this.committer = new DynamoDbCommitter(client, tableName, this.workspace, (collection, id) =>
      this.get(collection, id),
    );
  }

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: key(this.workspace, collection, id),
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : fromItem(out.Item);
  }

  /** Many records in one BatchGetItem per 100 ids (strongly consistent), retrying unprocessed keys. */
  async getMany(collection: Collection, ids: readonly string[]): Promise<(JsonRecord | undefined)[]> {
    return this.getRefs(ids.map((id) => ({ collection, id })));
  }

  /** Records of any collections of this workspace, as `getMany` reads them. */
  async getRefs(refs: readonly RecordRef[]): Promise<(JsonRecord | undefined)[]> {
    const found = new Map<string, JsonRecord>();
    const at = (k: { pk: unknown; sk: unknown }) => `${String(k.pk)}\u0000${String(k.sk)}`;
    const wanted = refs.map((ref) => key(this.workspace, ref.collection, ref.id));
    const unique = [...new Map(wanted.map((k) => [at(k), k])).values()];
    for (let start = 0; start < unique.length; start += BATCH_GET_KEYS) {
      let keys = unique.slice(start, start + BATCH_GET_KEYS);
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt > BATCH_GET_RETRIES)
          throw new HandoffError(`DynamoDB left ${keys.length} reads of ${keys[0]!.pk} unprocessed.`);
        if (attempt > 0)
          await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 1_000)));
        const out = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[this.tableName] ?? [])
          found.set(at(item as { pk: unknown; sk: unknown }), fromItem(item));
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as typeof keys;
      }
    }
    return wanted.map((k) => found.get(at(k)));
  }

  /** One Query per partition of the collection (one, or one per shard, side by side). */
  async list(collection: Collection): Promise<JsonRecord[]> {
    const parts = await Promise.all(
      partitionKeys(this.workspace, collection).map((pk) =>
        this.queryAll({
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': TABLE_SCHEMA.partitionKey },
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
        }),
      ),
    );
    return parts.flat();
  }

  async listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]> {
    if (!isIndexed(collection, status))
      return (await this.list(collection)).filter((r) => r.status === status);
    // A global index reads eventually consistent: a record written a moment ago may be missing.
    return this.queryAll({
      IndexName: STATUS_INDEX,
      KeyConditionExpression: '#g = :g',
      ExpressionAttributeNames: { '#g': 'gsi1pk' },
      ExpressionAttributeValues: { ':g': statusPartition(this.workspace, collection, status) },
    });
  }

  /** A page of the status index, oldest first (`gsi1sk`: when asked or started, then id), reading `limit` + 1. */
  async listStatusPage(collection: Collection, status: string, page: PageRequest): Promise<Page> {
    const cursor = page.cursor ?? null;
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: cursor ? '#g = :g AND #s > :cursor' : '#g = :g',
        ExpressionAttributeNames: { '#g': STATUS.partitionKey, ...(cursor ? { '#s': STATUS.sortKey } : {}) },
        ExpressionAttributeValues: {
          ':g': statusPartition(this.workspace, collection, status),
          ...(cursor ? { ':cursor': cursor } : {}),
        },
        Limit: page.limit + 1,
      }),
    );
    const items = (out.Items ?? []).map((item) => ({
      record: fromItem(item),
      key: String(item[STATUS.sortKey]),
    }));
    return sliced(items, page.limit);
  }

  /**
   * How many records are in the status: a COUNT Query of the status index (no record is
   * returned); with `prefix`, a COUNT Query of those keys' range filtered by status, per partition.
   */
  async countWithStatus(collection: Collection, status: string, prefix = ''): Promise<number> {
    if (prefix === '')
      return this.countAll({
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#g = :g',
        ExpressionAttributeNames: { '#g': STATUS.partitionKey },
        ExpressionAttributeValues: { ':g': statusPartition(this.workspace, collection, status) },
      });
    const counts = await Promise.all(
      partitionKeys(this.workspace, collection).map((pk) =>
        // The prefix's key range (an id equal to its upper bound, which no id of ours is, would count too).
        this.countAll({
          ...withStatusFilter(prefixQuery(pk, prefix), status),
          ConsistentRead: true,
        }),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /** The count of every page of a COUNT Query. */
  private async countAll(
    query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Select'>,
  ): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          ...query,
          TableName: this.tableName,
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return count;
  }

  /** The records whose id starts with `prefix`: one Query per partition on the prefix's sort-key range. */
  async listByIdPrefix(collection: Collection, prefix: string): Promise<JsonRecord[]> {
    const pages = await Promise.all(
      partitionKeys(this.workspace, collection).map((pk) =>
        this.queryAll({ ...prefixQuery(pk, prefix), ConsistentRead: true }),
      ),
    );
    return pages.flat().filter((record) => record.id.startsWith(prefix));
  }

  /**
   * A workflow's runs in this workspace, newest first: one Query on the runs-by-workflow index
   * (every page of it, or one Query with a Limit when `limit` is given).
   */
  async listRunsOf(workflowId: string, limit?: number): Promise<JsonRecord[]> {
    const query = {
      IndexName: RUNS_BY_WORKFLOW_INDEX.name,
      KeyConditionExpression: '#g = :g',
      ExpressionAttributeNames: { '#g': RUNS_BY_WORKFLOW_INDEX.partitionKey },
      ExpressionAttributeValues: { ':g': workflowPartition(this.workspace, workflowId) },
      ScanIndexForward: false,
    };
    if (limit === undefined) return this.queryAll(query);
    const out = await this.client.send(
      new QueryCommand({ ...query, TableName: this.tableName, Limit: limit }),
    );
    return (out.Items ?? []).map(fromItem);
  }

  /**
   * A page of the collection's time-indexed records, newest first: one Query on the by-time
   * index reading `limit` + 1 (eventually consistent, as every global index). A table made
   * before the index (see `handoff store migrate`) is listed and sorted instead.
   */
  async listNewest(collection: Collection, page: PageRequest): Promise<Page> {
    const cursor = page.cursor ?? null;
    let items;
    try {
      items = await this.queryUpTo(page.limit + 1, {
        IndexName: TIME_INDEX.name,
        KeyConditionExpression: cursor ? '#g = :g AND #s < :cursor' : '#g = :g',
        ExpressionAttributeNames: {
          '#g': TIME_INDEX.partitionKey,
          ...(cursor ? { '#s': TIME_INDEX.sortKey } : {}),
        },
        ExpressionAttributeValues: {
          ':g': timePartition(this.workspace, collection),
          ...(cursor ? { ':cursor': cursor } : {}),
        },
        ScanIndexForward: false,
      });
    } catch (err) {
      if (!isMissingIndex(err)) throw err;
      log.warn(
        `DynamoDB table ${this.tableName} has no ${TIME_INDEX.name} index yet: run \`handoff store migrate\``,
      );
      return newestOf(await this.list(collection), collection, page);
    }
    return sliced(
      items.map((item) => ({ record: fromItem(item), key: String(item[TIME_INDEX.sortKey]) })),
      page.limit,
    );
  }

  /**
   * A page of the records whose id starts with `prefix`, in id order (or descending), after the
   * cursor (the last id of the page before): one Query per partition, each reading `limit` + 1.
   */
  async listPage(collection: Collection, prefix: string, page: PageRequest): Promise<Page> {
    const cursor = page.cursor ?? null;
    // Newest first, the range's upper end (an id equal to it, not of the prefix) comes first: one more read.
    const limit = page.limit + (page.descending && prefixRange(prefix) ? 2 : 1);
    const parts = await Promise.all(
      partitionKeys(this.workspace, collection).map(async (pk) => {
        const items = await this.queryUpTo(
          limit,
          {
            ...prefixQuery(pk, prefix),
            ...(page.descending ? { ScanIndexForward: false } : {}),
            ConsistentRead: true,
          },
          cursor ? { pk, sk: cursor } : undefined,
        );
        return items.map(fromItem).filter((record) => record.id.startsWith(prefix));
      }),
    );
    const all = inIdOrder(parts.flat(), { ...page, cursor: null }).map((record) => ({
      record,
      key: record.id,
    }));
    return sliced(all, page.limit);
  }

  /**
   * The first `limit` items a Query gives, following its pages (DynamoDB ends a page at 1 MB,
   * before its Limit when items are large: an artifact may carry 64 KB), each with that Limit.
   */
  private async queryUpTo(
    limit: number,
    query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
    startKey?: Record<string, unknown>,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start = startKey;
    do {
      const out = await this.client.send(
        new QueryCommand({
          ...query,
          TableName: this.tableName,
          Limit: limit - items.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start && items.length < limit);
    return items;
  }

  /** Every page of a Query on the table. */
  private async queryAll(
    query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  ): Promise<JsonRecord[]> {
    const records: JsonRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          ...query,
          TableName: this.tableName,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) records.push(fromItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return records;
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    const next: Versioned<T> = { ...record, version: 1 };
    const write = { kind: 'create', collection, record } as const;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(this.workspace, collection, next),
          ...conditionOf(write),
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw recordExists(collection, record.id, err);
      throw err;
    }
    return next;
  }

  async update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    const next: Versioned<T> = { ...record, version: expectedVersion + 1 };
    const write = { kind: 'update', collection, record, expectedVersion } as const;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(this.workspace, collection, next),
          ...conditionOf(write),
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      // A follow-up read rather than ALL_OLD: DynamoDB Local emulators do not all support it.
      throw versionConflict(write, await this.get(collection, record.id), err);
    }
    return next;
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: toItem(this.workspace, collection, record) }),
    );
  }

  async delete(collection: Collection, id: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: key(this.workspace, collection, id) }),
    );
  }

  /**
   * Many writes as one TransactWriteItems per 100 (each write's condition on its own: a
   * cancelled transaction is sent again without the writes whose condition failed); on an
   * endpoint without transactions, batched puts and one request per create or update.
   */
  async commit(writes: readonly Write[], options: CommitOptions = {}): Promise<WriteResult[]> {
    return this.committer.commit(writes, options.checks);
  }
}

/**
 * Creates the store's table as TABLE_SCHEMA defines it (the stack's keys, indexes and
 * TTL; on-demand billing) unless it exists, then waits until it is ACTIVE. Describes first, so an existing table needs no
 * CreateTable permission.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  let result: 'created' | 'exists' = 'exists';
  if ((await tableStatus(client, tableName)) === undefined) {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: keySchema(TABLE_SCHEMA),
          GlobalSecondaryIndexes: TABLE_SCHEMA.indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: keySchema(index),
            Projection: { ProjectionType: 'ALL' },
          })),
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      result = 'created';
    } catch (err) {
      // Another process created it between our describe and create.
      if (errorName(err) !== 'ResourceInUseException') throw err;
    }
  }
  const deadline = Date.now() + TABLE_WAIT_MS;
  let delay = 20;
  while ((await tableStatus(client, tableName)) !== 'ACTIVE') {
    if (Date.now() >= deadline) {
      throw new HandoffError(
        `DynamoDB table ${tableName} did not become ACTIVE within ${TABLE_WAIT_MS / 1000} s.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 2_000);
  }
  if (result === 'created') await enableTtl(client, tableName);
  return result;
}

function keySchema(keys: { partitionKey: string; sortKey: string }) {
  return [
    { AttributeName: keys.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: keys.sortKey, KeyType: 'RANGE' as const },
  ];
}

/** Turns on TTL as the stack does; an emulator without TTL (dynalite) is noted and skipped. */
async function enableTtl(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
      }),
    );
  } catch (err) {
    if (errorName(err) !== 'UnknownOperationException') throw err;
    log.debug(`DynamoDB at this endpoint has no TTL; ${tableName} keeps expired items`);
  }
}

/**
 * The table's status (ACTIVE, CREATING, ...), undefined when there is no such table; refuses
 * (InvalidInputError) a table whose key is not the store's.
 */
export async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const keys = out.Table?.KeySchema?.map((k) => `${k.AttributeName ?? ''}:${k.KeyType ?? ''}`).join(',');
    if (keys !== `${TABLE_SCHEMA.partitionKey}:HASH,${TABLE_SCHEMA.sortKey}:RANGE`) {
      throw new InvalidInputError(
        `DynamoDB table ${tableName} exists but its key is ${keys}, not pk (hash) + sk (range).`,
      );
    }
    return out.Table?.TableStatus ?? 'UNKNOWN';
  } catch (err) {
    if (errorName(err) === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

/**
 * The key condition of a Query for the ids of partition `pk` starting with `prefix`: the
 * prefix's sort-key range with `BETWEEN` (prefixRange in dynamodb-keys.ts: why not
 * `begins_with`), the whole partition for an empty prefix. The caller drops ids not of the prefix.
 */
function prefixQuery(
  pk: string,
  prefix: string,
): Pick<QueryCommandInput, 'KeyConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  const range = prefixRange(prefix);
  if (!range)
    return {
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE_SCHEMA.partitionKey },
      ExpressionAttributeValues: { ':pk': pk },
    };
  return {
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :after',
    ExpressionAttributeNames: { '#pk': TABLE_SCHEMA.partitionKey, '#sk': TABLE_SCHEMA.sortKey },
    ExpressionAttributeValues: { ':pk': pk, ':from': range.from, ':after': range.after },
  };
}

/** `query` keeping only the records in `status` (a filter: read, not returned or counted). */
function withStatusFilter(
  query: ReturnType<typeof prefixQuery>,
  status: string,
): ReturnType<typeof prefixQuery> & Pick<QueryCommandInput, 'FilterExpression'> {
  return {
    ...query,
    FilterExpression: '#st = :st',
    ExpressionAttributeNames: { ...query.ExpressionAttributeNames, '#st': 'status' },
    ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':st': status },
  };
}

/** A Query on an index the table does not have (made before it). */
function isMissingIndex(err: unknown): boolean {
  return errorName(err) === 'ValidationException' && /index/i.test(isError(err) ? err.message : '');
}

function isConditionFailure(err: unknown): boolean {
  return errorName(err) === 'ConditionalCheckFailedException';
}

function errorName(err: unknown): string | undefined {
  return isError(err) ? err.name : undefined;
}

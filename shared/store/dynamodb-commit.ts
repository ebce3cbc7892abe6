/**
 * Many writes to the store's table as few requests as the endpoint allows: one
 * TransactWriteItems per 100 writes on DynamoDB (and DynamoDB Local); where the endpoint
 * has no transactions (dynalite), BatchWriteItem for runs of unconditional puts and one
 * conditional request for each create or update. Writes land in the order given.
 */
import {
  BatchWriteCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { RecordExistsError, VersionConflictError, isError } from '../errors/index.ts';
import type { Collection, JsonRecord, VersionCheck, Write, WriteResult } from './store.ts';
import { key, toItem } from './dynamodb-items.ts';

const TRANSACTION_ACTIONS = 100;
/** Under TransactWriteItems' 4 MB request limit, measured as JSON text. */
const TRANSACTION_BYTES = 3_500_000;
const BATCH_PUTS = 25;
const RETRIES = 8;

/** Reads a record back (strongly consistent), for the stored record of a lost update. */
export type ReadBack = (collection: Collection, id: string) => Promise<JsonRecord | undefined>;

/** One write ready to send: its item, its condition, and the record it stores. */
type Prepared = { write: Write; item: Record<string, unknown>; stored: JsonRecord; key: string };

/** The error a create meets when the id is taken. */
export function recordExists(collection: Collection, id: string, cause: unknown): RecordExistsError {
  return new RecordExistsError(`${collection}/${id} already exists.`, { cause });
}

/** The error an update meets when the stored version moved (or the record is gone). */
export function versionConflict(
  write: { collection: Collection; record: JsonRecord; expectedVersion: number },
  current: JsonRecord | undefined,
  cause: unknown,
): VersionConflictError {
  const found = current === undefined ? 'missing' : `at version ${String(current.version)}`;
  return new VersionConflictError(
    `${write.collection}/${write.record.id} is ${found}, not version ${write.expectedVersion}; re-read and retry.`,
    current,
    { cause },
  );
}

/** The condition of a create or an update, in the shape PutItem and a transaction's Put share. */
export function conditionOf(write: Write): Record<string, unknown> {
  if (write.kind === 'create') return { ConditionExpression: 'attribute_not_exists(pk)' };
  if (write.kind === 'update')
    return {
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':expected': write.expectedVersion },
    };
  return {};
}

/** Carries out `commit` for one table; remembers whether the endpoint has transactions. */
export class DynamoDbCommitter {
  private transactions: boolean | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly workspace: string,
    private readonly readBack: ReadBack,
  ) {}

  /**
   * The writes' results in order; a failed condition is a result, any other error throws.
   * `checks` are proved only in one transaction with every write: then one result each
   * follows the writes' (none without transactions, or when the writes take several).
   */
  async commit(writes: readonly Write[], checks: readonly VersionCheck[] = []): Promise<WriteResult[]> {
    // Every item is built (and refused, if bad) before anything is sent.
    const prepared = writes.map((write) => prepare(this.workspace, write));
    const results: WriteResult[] = new Array<WriteResult>(prepared.length);
    const chunks = transactionChunks(prepared);
    const checked = chunks.length === 1 && chunks[0]!.length + checks.length <= TRANSACTION_ACTIONS;
    for (const chunk of chunks) {
      if (this.transactions !== false) {
        try {
          await this.transact(prepared, chunk, results, checked ? checks : []);
          this.transactions = true;
          continue;
        } catch (err) {
          if (this.transactions === true || errorName(err) !== 'UnknownOperationException') throw err;
          this.transactions = false;
        }
      }
      await this.writeInTurn(prepared, chunk, results);
    }
    return results;
  }

  /**
   * One transaction for the chunk (and the checks, after its writes' results); a cancelled
   * one is sent again without its failed writes and checks.
   */
  private async transact(
    prepared: Prepared[],
    chunk: number[],
    results: WriteResult[],
    checks: readonly VersionCheck[],
  ): Promise<void> {
    // Positions past the writes' are checks.
    let pending = [...chunk, ...checks.map((_, j) => prepared.length + j)];
    const check = (i: number) => checks[i - prepared.length]!;
    for (let attempt = 0; pending.some((i) => i < prepared.length);) {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: pending.map((i) =>
              i < prepared.length
                ? {
                    Put: {
                      TableName: this.tableName,
                      Item: prepared[i]!.item,
                      ...conditionOf(prepared[i]!.write),
                    },
                  }
                : { ConditionCheck: this.conditionCheck(check(i)) },
            ),
          }),
        );
        for (const i of pending)
          results[i] = { ok: true, record: i < prepared.length ? prepared[i]!.stored : { id: check(i).id } };
        return;
      } catch (err) {
        const reasons = cancellationReasons(err);
        if (reasons === undefined) throw err;
        const retry: number[] = [];
        let failed = 0;
        for (const [position, i] of pending.entries()) {
          const code = reasons[position] ?? 'None';
          if (code === 'ConditionalCheckFailed') {
            results[i] =
              i < prepared.length
                ? await this.failure(prepared[i]!.write, err)
                : { ok: false, error: checkFailed(check(i), err) };
            failed++;
          } else if (code === 'None' || RETRYABLE.has(code)) retry.push(i);
          else throw err;
        }
        // Only contention (no failed condition) counts against the retries.
        if (failed === 0 && ++attempt > RETRIES) throw err;
        if (failed === 0) await backoff(attempt);
        pending = retry;
      }
    }
  }

  private conditionCheck(check: VersionCheck) {
    return {
      TableName: this.tableName,
      Key: key(this.workspace, check.collection, check.id),
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':expected': check.expectedVersion },
    };
  }

  /** Without transactions: consecutive puts in batches of 25, each create or update on its own. */
  private async writeInTurn(prepared: Prepared[], chunk: number[], results: WriteResult[]): Promise<void> {
    let puts: number[] = [];
    const flush = async () => {
      if (puts.length > 0) await this.batchPut(puts.map((i) => prepared[i]!.item));
      for (const i of puts) results[i] = { ok: true, record: prepared[i]!.stored };
      puts = [];
    };
    for (const i of chunk) {
      const p = prepared[i]!;
      if (p.write.kind === 'put') {
        if (puts.length === BATCH_PUTS || puts.some((j) => prepared[j]!.key === p.key)) await flush();
        puts.push(i);
        continue;
      }
      await flush();
      try {
        await this.client.send(
          new PutCommand({ TableName: this.tableName, Item: p.item, ...conditionOf(p.write) }),
        );
        results[i] = { ok: true, record: p.stored };
      } catch (err) {
        if (errorName(err) !== 'ConditionalCheckFailedException') throw err;
        results[i] = await this.failure(p.write, err);
      }
    }
    await flush();
  }

  private async batchPut(items: Record<string, unknown>[]): Promise<void> {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > RETRIES) throw new Error(`DynamoDB left ${requests.length} writes unprocessed.`);
      if (attempt > 0) await backoff(attempt);
      const out = await this.client.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }),
      );
      requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
    }
  }

  private async failure(write: Write, cause: unknown): Promise<WriteResult> {
    if (write.kind === 'create')
      return { ok: false, error: recordExists(write.collection, write.record.id, cause) };
    if (write.kind === 'update') {
      const current = await this.readBack(write.collection, write.record.id);
      return { ok: false, error: versionConflict(write, current, cause) };
    }
    throw cause; // an unconditional put has no condition to fail
  }
}

/** A check that did not hold: the record moved (or is gone) since it was read. */
function checkFailed(check: VersionCheck, cause: unknown): VersionConflictError {
  return new VersionConflictError(
    `${check.collection}/${check.id} is no longer at version ${check.expectedVersion}.`,
    undefined,
    { cause },
  );
}

/** Codes of a cancelled transaction's reasons worth sending again. */
const RETRYABLE = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

function prepare(workspace: string, write: Write): Prepared {
  const stored =
    write.kind === 'create'
      ? { ...write.record, version: 1 }
      : write.kind === 'update'
        ? { ...write.record, version: write.expectedVersion + 1 }
        : write.record;
  return {
    write,
    stored,
    item: toItem(workspace, write.collection, stored),
    key: `${write.collection}\u0000${write.record.id}`,
  };
}

/**
 * The writes in order, cut into transactions of at most 100 actions and ~3.5 MB, and never
 * two writes to one item in a transaction (DynamoDB refuses that).
 */
function transactionChunks(prepared: Prepared[]): number[][] {
  const chunks: number[][] = [];
  let chunk: number[] = [];
  let keys = new Set<string>();
  let bytes = 0;
  for (const [i, p] of prepared.entries()) {
    const size = JSON.stringify(p.item).length;
    if (
      chunk.length === TRANSACTION_ACTIONS ||
      keys.has(p.key) ||
      (chunk.length > 0 && bytes + size > TRANSACTION_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      keys = new Set();
      bytes = 0;
    }
    chunk.push(i);
    keys.add(p.key);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** The reason codes of a TransactionCanceledException, one per action; undefined for any other error. */
function cancellationReasons(err: unknown): (string | undefined)[] | undefined {
  if (errorName(err) !== 'TransactionCanceledException') return undefined;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return reasons?.map((r) => r.Code);
}

function backoff(attempt: number): Promise<void> {
  const ms = Math.min(20 * 2 ** attempt, 1_000) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorName(err: unknown): string | undefined {
  return isError(err) ? err.name : undefined;
}

/**
 * Counts the items a DynamoDB client writes by partition key: every write request (PutItem,
 * UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) taken apart into its items, each
 * counted under its `pk`, and under its index keys (`gsi1pk`, `gsi2pk`) when it has them. A
 * request counts once it is done, or failed its condition (which still takes write capacity).
 * Used by the load simulation (lambda-load.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../shared/store/table-schema.ts';

/** What the counter has seen so far (live: read it when the load is done). */
export interface WriteCounts {
  /** Write requests sent. */
  requests: number;
  /** Items written, a batch's or a transaction's each counted. */
  itemWrites: number;
  byKey: Map<string, number>;
  byIndexKey: Map<string, number>;
}

type Attributes = Record<string, unknown>;

/** A key attribute's string, whether the input is still plain (document client) or marshalled. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const s = (value as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

/** The items (or keys) a write command's input writes. */
export function writtenItems(command: string, input: Attributes): Attributes[] {
  const name = command
    .replace(/Command$/, '')
    .replace(/Item$/, '')
    .replace(/Items$/, '');
  if (name === 'Put') return [input.Item as Attributes];
  if (name === 'Update' || name === 'Delete') return [input.Key as Attributes];
  if (name === 'BatchWrite') {
    const requests = Object.values(input.RequestItems as Record<string, Attributes[]>).flat();
    return requests.map(
      (r) =>
        ((r.PutRequest as Attributes | undefined)?.Item ?? (r.DeleteRequest as Attributes).Key) as Attributes,
    );
  }
  if (name === 'TransactWrite')
    return (input.TransactItems as Attributes[]).flatMap((action) => {
      const one = (action.Put ?? action.Update ?? action.Delete) as Attributes | undefined;
      return one ? [(one.Item ?? one.Key) as Attributes] : []; // a ConditionCheck writes nothing
    });
  return [];
}

const WRITES =
  /^(Put|Update|Delete)(Item)?Command$|^BatchWrite(Item)?Command$|^TransactWrite(Items)?Command$/;

/** Adds the counting middleware to `client`; the returned counts fill as requests are sent. */
export function countWrites(client: DynamoDBClient): WriteCounts {
  const counts: WriteCounts = { requests: 0, itemWrites: 0, byKey: new Map(), byIndexKey: new Map() };
  const add = (tally: Map<string, number>, key: string | undefined) => {
    if (key !== undefined) tally.set(key, (tally.get(key) ?? 0) + 1);
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      if (!WRITES.test(command)) return next(args);
      const tally = () => {
        counts.requests += 1;
        for (const item of writtenItems(command, args.input as Attributes)) {
          counts.itemWrites += 1;
          add(counts.byKey, text(item[TABLE_SCHEMA.partitionKey]));
          for (const index of TABLE_SCHEMA.indexes) add(counts.byIndexKey, text(item[index.partitionKey]));
        }
      };
      try {
        const out = await next(args);
        tally();
        return out;
      } catch (error) {
        // A failed condition still takes the partition's write capacity; a refused request does not.
        if ((error as Error).name === 'ConditionalCheckFailedException') tally();
        throw error;
      }
    },
    { step: 'build', name: 'benchCountPartitionWrites' },
  );
  return counts;
}

/**
 * The one definition of the store's DynamoDB table: its keys, its global secondary
 * indexes and its TTL attribute. The CDK stack (lib/table.ts) and `handoff store init`
 * (ensureTable) both build the table from it, so the two cannot drift apart.
 */

/** One global secondary index: string keys, every attribute projected. */
export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

/**
 * Records waiting on something (pending decisions, running and waiting runs, unsettled
 * claims): `gsi1pk` = `<workspace>#<collection>#<status>`, `gsi1sk` = when it started.
 * Sparse: set only while waiting.
 */
export const STATUS_INDEX = {
  name: 'pending',
  partitionKey: 'gsi1pk',
  sortKey: 'gsi1sk',
} as const satisfies IndexDefinition;

/** A workflow's runs by time: `gsi2pk` = `<workspace>#runs#<workflow id>`, `gsi2sk` = `<started_at>#<run id>`. */
export const RUNS_BY_WORKFLOW_INDEX = {
  name: 'runs-by-workflow',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
} as const satisfies IndexDefinition;

/**
 * Settled decisions and runs by time, newest first (Activity's latest answers, the runs page):
 * `gsi3pk` = `<workspace>#<collection>#time`, `gsi3sk` = `<time>#<id>` (TIME_INDEXED in
 * store.ts). Sparse: a pending decision is not in it. One index write per such record write.
 */
export const TIME_INDEX = {
  name: 'by-time',
  partitionKey: 'gsi3pk',
  sortKey: 'gsi3sk',
} as const satisfies IndexDefinition;

/**
 * The single table: `pk` = `<workspace>#<collection>` (sharded collections add `#<shard>`:
 * see dynamodb-keys.ts), `sk` = record id; every key attribute is a string.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [STATUS_INDEX, RUNS_BY_WORKFLOW_INDEX, TIME_INDEX] as readonly IndexDefinition[],
  /** Epoch seconds after which DynamoDB may delete the item. */
  ttlAttribute: 'ttl',
} as const;

/** Attribute names the store writes itself; a record may not use them as fields. */
export const KEY_ATTRIBUTES: readonly string[] = [
  TABLE_SCHEMA.partitionKey,
  TABLE_SCHEMA.sortKey,
  ...TABLE_SCHEMA.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
];

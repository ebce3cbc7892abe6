/**
 * The key layout of the store's one table. Every key begins with the workspace, so one
 * workspace's records never share a partition with another's:
 *
 * - `pk` = `<workspace>#<collection>`; for the high-volume collections (SHARDED_COLLECTIONS:
 *   a write or more per item) `<workspace>#<collection>#<shard>`, the shard derived from the
 *   id, so a `get` by id still knows its key and a `list` queries every shard;
 * - `sk` = the record's id;
 * - the status index: `gsi1pk` = `<workspace>#<collection>#<status>`;
 * - the runs-by-workflow index: `gsi2pk` = `<workspace>#runs#<workflow id>`;
 * - the by-time index: `gsi3pk` = `<workspace>#<collection>#time`.
 *
 * The layout before workspaces (`pk` = the bare collection) is read only by
 * `handoff store migrate` (dynamodb-migrate.ts).
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors/index.ts';
import type { Collection } from './store.ts';

export { DEFAULT_WORKSPACE, PLATFORM_WORKSPACE } from '../workspaces/names.ts';
/** Collections of the platform workspace, wherever the layout before workspaces kept them. */
export const PLATFORM_COLLECTIONS: ReadonlySet<Collection> = new Set<Collection>(['workspaces', 'api_keys']);

/** Partitions per sharded collection per workspace: each takes up to DynamoDB's per-partition write rate. */
export const SHARDS = 8;
/**
 * Collections written once or more per item of every run (the claim and settle of an
 * outcome, an audit entry): spread over SHARDS partitions per workspace. Decisions (one per
 * unsure item) stay whole: answering one lists them, and one Query beats eight.
 */
export const SHARDED_COLLECTIONS: ReadonlySet<Collection> = new Set<Collection>(['audit', 'outcomes']);

const WORKSPACE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** The workspace name, checked: 1–64 letters, digits, `_`, `.` or `-` (never `#`, the key separator). */
export function checkWorkspace(workspace: string): string {
  if (!WORKSPACE_NAME.test(workspace))
    throw new InvalidInputError(
      `Workspace '${workspace}' is not a valid name: use 1-64 letters, digits, '_', '.' or '-' (not starting with '.' or '-').`,
    );
  return workspace;
}

/** The shard of an id: a stable hash, the same in every process. */
export function shardOf(id: string): number {
  return createHash('sha1').update(id).digest().readUInt32BE(0) % SHARDS;
}

/** The partition key holding the record `id` of `collection` in `workspace`. */
export function partitionKey(workspace: string, collection: Collection, id: string): string {
  return SHARDED_COLLECTIONS.has(collection)
    ? `${workspace}#${collection}#${shardOf(id)}`
    : `${workspace}#${collection}`;
}

/** Every partition key a collection of a workspace may use (one, or one per shard). */
export function partitionKeys(workspace: string, collection: Collection): string[] {
  if (!SHARDED_COLLECTIONS.has(collection)) return [`${workspace}#${collection}`];
  return Array.from({ length: SHARDS }, (_, shard) => `${workspace}#${collection}#${shard}`);
}

/** The status index's partition key for the records of `collection` in `status`. */
export function statusPartition(workspace: string, collection: Collection, status: string): string {
  return `${workspace}#${collection}#${status}`;
}

/** The runs-by-workflow index's partition key for one workflow's runs. */
export function workflowPartition(workspace: string, workflowId: string): string {
  return `${workspace}#runs#${workflowId}`;
}

/** The by-time index's partition key for a collection's time-indexed records. */
export function timePartition(workspace: string, collection: Collection): string {
  return `${workspace}#${collection}#time`;
}

/**
 * The sort-key range holding every id that starts with `prefix`: `[prefix, after]`, `after`
 * the least string greater than all of them (the prefix with its last character moved on by
 * one; DynamoDB orders strings by their UTF-8 bytes, which is code point order). A Query reads
 * it with `BETWEEN`, inclusive, so the caller drops an id equal to `after` (it does not start
 * with the prefix). `BETWEEN` rather than `begins_with`: both are one key range on DynamoDB,
 * but DynamoDB Local (the benches, the tests) answers `begins_with` by reading the whole
 * partition, so a run's audit cost more as the workspace's history grew (docs/history.md).
 * Null for an empty prefix, or one of U+10FFFF only: every id of the partition.
 */
export function prefixRange(prefix: string): { from: string; after: string } | null {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    const next = last === 0xd7ff ? 0xe000 : last + 1; // over the surrogates, never valid alone
    return { from: prefix, after: points.join('') + String.fromCodePoint(next) };
  }
  return null;
}

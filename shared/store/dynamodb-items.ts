/**
 * How a record becomes a DynamoDB item of the store's one table and back: the key and
 * index keys of one workspace (dynamodb-keys.ts), the record's fields alongside.
 */
import { InvalidInputError } from '../errors/index.ts';
import { isIndexed, timeSortKey, type Collection, type JsonRecord } from './store.ts';
import { KEY_ATTRIBUTES } from './table-schema.ts';
import { partitionKey, statusPartition, timePartition, workflowPartition } from './dynamodb-keys.ts';

/** The primary key of a record of `workspace`; refuses an empty id. */
export function key(workspace: string, collection: Collection, id: string): { pk: string; sk: string } {
  if (typeof id !== 'string' || id === '')
    throw new InvalidInputError('A record id must be a non-empty string.');
  return { pk: partitionKey(workspace, collection, id), sk: id };
}

/** The item to store for a record of `workspace`: its fields, its key and its index keys. */
export function toItem(
  workspace: string,
  collection: Collection,
  record: JsonRecord,
): Record<string, unknown> {
  // pk/sk would be overwritten by the key, losing data; refuse instead.
  if (RESERVED.some((name) => name in record)) {
    throw new InvalidInputError(
      `${collection}/${record.id}: ${RESERVED.map((n) => `'${n}'`).join(', ')} are reserved field names in DynamoDB.`,
    );
  }
  return {
    ...record,
    ...key(workspace, collection, record.id),
    ...statusKeys(workspace, collection, record),
    ...workflowKeys(workspace, collection, record),
    ...timeKeys(workspace, collection, record),
  };
}

/** The by-time index's keys, for a record of a time-indexed collection that has its time; none otherwise. */
function timeKeys(
  workspace: string,
  collection: Collection,
  record: JsonRecord,
): { gsi3pk?: string; gsi3sk?: string } {
  const sortKey = timeSortKey(collection, record);
  return sortKey === undefined ? {} : { gsi3pk: timePartition(workspace, collection), gsi3sk: sortKey };
}

const RESERVED = KEY_ATTRIBUTES;

/** The runs-by-workflow index's keys, on every run. */
function workflowKeys(
  workspace: string,
  collection: Collection,
  record: JsonRecord,
): { gsi2pk?: string; gsi2sk?: string } {
  if (collection !== 'runs' || typeof record.workflow_id !== 'string') return {};
  const started = typeof record.started_at === 'string' ? record.started_at : '';
  return { gsi2pk: workflowPartition(workspace, record.workflow_id), gsi2sk: `${started}#${record.id}` };
}

/** The status index's keys, for a record in an indexed status; none otherwise. */
function statusKeys(
  workspace: string,
  collection: Collection,
  record: JsonRecord,
): { gsi1pk?: string; gsi1sk?: string } {
  const status = record.status;
  if (!isIndexed(collection, status)) return {};
  const since = record.created_at ?? record.started_at ?? record.at;
  return {
    gsi1pk: statusPartition(workspace, collection, status),
    gsi1sk: `${typeof since === 'string' ? since : ''}#${record.id}`,
  };
}

/** The record an item holds (the key and index attributes removed). */
export function fromItem(item: Record<string, unknown>): JsonRecord {
  const record = { ...item };
  for (const name of KEY_ATTRIBUTES) delete record[name];
  return record as JsonRecord;
}

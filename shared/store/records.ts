import type { z } from 'zod';
import { HandoffError } from '../errors/index.ts';
import { getAll, type Collection, type JsonRecord, type Store } from './store.ts';

/** A record read back from the store that does not fit its schema: the store is damaged. */
export class CorruptRecordError extends HandoffError {}

/** Parses a stored record with its schema; never `as T`. */
export function parseRecord<S extends z.ZodType>(
  schema: S,
  collection: Collection,
  raw: JsonRecord,
): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorruptRecordError(
      `${collection}/${raw.id}: stored record is not valid (${issue?.path.join('.') || 'record'}: ${issue?.message})`,
    );
  }
  return parsed.data;
}

/** Reads and validates one record. */
export async function getRecord<S extends z.ZodType>(
  store: Store,
  collection: Collection,
  schema: S,
  id: string,
): Promise<z.infer<S> | undefined> {
  const raw = await store.get(collection, id);
  return raw === undefined ? undefined : parseRecord(schema, collection, raw);
}

/** Reads and validates the records of many ids in as few requests as the store allows; in the ids' order. */
export async function getRecords<S extends z.ZodType>(
  store: Store,
  collection: Collection,
  schema: S,
  ids: readonly string[],
): Promise<(z.infer<S> | undefined)[]> {
  const raws = await getAll(store, collection, ids);
  return raws.map((raw) => (raw === undefined ? undefined : parseRecord(schema, collection, raw)));
}

/** Reads and validates every record of a collection. */
export async function listRecords<S extends z.ZodType>(
  store: Store,
  collection: Collection,
  schema: S,
): Promise<z.infer<S>[]> {
  return (await store.list(collection)).map((raw) => parseRecord(schema, collection, raw));
}

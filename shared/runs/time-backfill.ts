/**
 * A collection in the by-time index (TIME_INDEXED) when records of it were written by a build
 * before it was indexed: those lack the index's keys until `handoff store migrate` writes them
 * again (a step of its own, with its own marker, `migration:<step>`); a workspace this build
 * wrote is marked on its first list. Artifacts (artifacts/artifact-times.ts) and chats
 * (chats/chat-list.ts).
 */
import { crashPoint } from '../config/processes.ts';
import { isStepDone, markStepDone, unlessStepDone } from '../settings/settings.ts';
import {
  commitAll,
  listNewest,
  type Collection,
  type JsonRecord,
  type Store,
  type Write,
} from '../store/store.ts';

const BATCH = 100;

/** A collection's backfill: which collection, and the step's name (its marker and crash point). */
export interface TimeBackfill {
  collection: Collection;
  step: string;
}

/** The marker that says every record of the step's collection is in the by-time index (in `settings`). */
export const markerOf = (backfill: TimeBackfill): string => `migration:${backfill.step}`;

/**
 * Null when every record is in the by-time index: the marker; else, once, every record
 * listed and the index read as far: when it holds them all (a workspace this build wrote) the
 * marker is written, and later pages read the index only. Otherwise every record, as listed.
 */
export function unlessIndexed(store: Store, backfill: TimeBackfill): Promise<JsonRecord[] | null> {
  return unlessStepDone(
    store,
    markerOf(backfill),
    () => store.list(backfill.collection),
    async (listed) => {
      const indexed = await listNewest(store, backfill.collection, { limit: Math.max(listed.length, 1) });
      return indexed.items.length === listed.length && indexed.next_cursor === null;
    },
  );
}

/**
 * The step of `handoff store migrate`: writes every record again (a put of the same record:
 * idempotent), so the by-time index holds it, then the marker, last; killed in the middle it
 * is simply run again. Returns how many were written (0 when already done).
 */
export async function backfillTimes(
  store: Store,
  backfill: TimeBackfill,
): Promise<{ already_done: boolean; written: number }> {
  if (await isStepDone(store, markerOf(backfill))) return { already_done: true, written: 0 };
  const all = await store.list(backfill.collection);
  for (let i = 0; i < all.length; i += BATCH) {
    const writes: Write[] = all
      .slice(i, i + BATCH)
      .map((record) => ({ kind: 'put', collection: backfill.collection, record }));
    for (const result of await commitAll(store, writes)) if (!result.ok) throw result.error;
    crashPoint(`migrate:${backfill.step}-batch`);
  }
  await markStepDone(store, markerOf(backfill));
  return { already_done: false, written: all.length };
}

/**
 * The audit entries of a span of time, read by key: the runs that can hold them (started in
 * the span or the day before it, from the by-time index; or with a question settled in the
 * span: a run resumed by an answer acts when it is answered), then each run's entries by the
 * run's key. What it reads grows with the span's activity, never with the history.
 */
import type { AuditEntry } from '../records/audit.ts';
import { RunSchema, type Run } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import {
  getAll,
  listNewest,
  timeKeyOf,
  type Collection,
  type JsonRecord,
  type Store,
} from '../store/store.ts';
import { auditOfRun } from './audit.ts';

const DAY_MS = 86_400_000;
const WALK_PAGE = 100;

/** The entries with `from` ≤ `at` < `to` (ISO times), oldest first. */
export async function auditBetween(store: Store, from: string, to: string): Promise<AuditEntry[]> {
  const runs = new Map<string, Run>();
  const startedFrom = new Date(Date.parse(from) - DAY_MS).toISOString();
  for await (const r of newestWithin(store, 'runs', startedFrom, to)) runs.set(r.id, asRun(r));
  const resumed = new Set<string>();
  for await (const d of newestWithin(store, 'decisions', from, to))
    if (typeof d.run_id === 'string' && !runs.has(d.run_id)) resumed.add(d.run_id);
  for (const r of await getAll(store, 'runs', [...resumed])) if (r) runs.set(r.id, asRun(r));
  const entries = (await Promise.all([...runs.values()].map((run) => auditOfRun(store, run)))).flat();
  return entries
    .filter((e) => e.at >= from && e.at < to)
    .sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
}

/** The time-indexed records of `collection` with `from` ≤ time < `to`, newest first, a page at a time. */
async function* newestWithin(
  store: Store,
  collection: Collection,
  from: string,
  to: string,
): AsyncGenerator<JsonRecord> {
  let cursor: string | null = to; // a time as a cursor: the page starts just before it
  for (;;) {
    const page = await listNewest(store, collection, { limit: WALK_PAGE, cursor });
    for (const record of page.items) {
      const time = timeKeyOf(collection, record);
      if (time === undefined || time < from) return;
      yield record;
    }
    if (page.next_cursor === null) return;
    cursor = page.next_cursor;
  }
}

const asRun = (r: JsonRecord): Run => parseRecord(RunSchema, 'runs', r);

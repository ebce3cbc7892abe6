/**
 * A store spy for "every read by key" tests: wraps any Store (JSON files or DynamoDB) and
 * notes each full read of a collection that has a key for the paths under test (its whole
 * `list`, or `listWithStatus` of a status the backends do not index), each whole read of an
 * indexed status (`statusReads`: every waiting question, say) and how many records each keyed
 * read returned, per collection (`recordsRead`). On DynamoDB,
 * `fullQueries` also names every Query of a collection's partition with neither a key
 * condition on the sort key nor a Limit (a page), and every Scan, from the client's requests.
 */
import { promises as fsPromises } from 'node:fs';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { isIndexed, type Collection, type Store } from '../../shared/store/store.ts';
import { RUNS_BY_WORKFLOW_INDEX } from '../../shared/store/table-schema.ts';
import { recordRequests, type SentRequest } from './dynamodb-requests.ts';

/** Collections every history read must reach by key: a full read of one is a bug. */
export const KEYED_COLLECTIONS: ReadonlySet<Collection> = new Set<Collection>([
  'audit',
  'decisions',
  'runs',
  'outcomes',
  'rules',
  'artifacts',
  'interrupts',
  'chats',
  'proposals',
  // `handoff usage` reads one roll-up per workflow and day (recorder/usage-days.ts) once migrated.
  'usage',
]);

export interface StoreSpy {
  /** The store to hand to the code under test. */
  store: Store;
  /** Each full read of a keyed collection, as `<method> <collection>`. */
  fullReads: string[];
  /** Each read of everything in an indexed status, as `listWithStatus <collection> <status>`. */
  statusReads: string[];
  /** How many records the reads returned, per collection (whole reads, pages, prefixes, ids). */
  recordsRead: Partial<Record<Collection, number>>;
  /** Forgets what was noted (after the seeding, before the path under test). */
  reset(): void;
}

/** Wraps `store`; every call is passed through, full reads of KEYED_COLLECTIONS noted. */
export function spyOnStore(store: Store): StoreSpy {
  const fullReads: string[] = [];
  const statusReads: string[] = [];
  const recordsRead: Partial<Record<Collection, number>> = {};
  const counted = (collection: Collection, n: number) => {
    recordsRead[collection] = (recordsRead[collection] ?? 0) + n;
  };
  // The reads that return records: each counts what it returned (its first argument is the collection).
  const returnsRecords = new Set([
    'get',
    'getMany',
    'listByIdPrefix',
    'listNewest',
    'listPage',
    'listStatusPage',
    'listRunsOf',
  ]);
  const spied = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'list')
        return async (collection: Collection) => {
          if (KEYED_COLLECTIONS.has(collection)) fullReads.push(`list ${collection}`);
          const records = await target.list(collection);
          counted(collection, records.length);
          return records;
        };
      if (name === 'listWithStatus')
        return async (collection: Collection, status: string, prefix?: string) => {
          if (KEYED_COLLECTIONS.has(collection) && !isIndexed(collection, status))
            fullReads.push(`listWithStatus ${collection} ${status}`);
          else if (!prefix) statusReads.push(`listWithStatus ${collection} ${status}`); // a prefix's: keyed
          const records = await target.listWithStatus(collection, status, prefix);
          counted(collection, records.length);
          return records;
        };
      if (typeof name === 'string' && returnsRecords.has(name))
        return async (...args: unknown[]) => {
          const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          const collection = (name === 'listRunsOf' ? 'runs' : args[0]) as Collection;
          const n = Array.isArray(out)
            ? out.filter(Boolean).length
            : out && typeof out === 'object' && 'items' in out
              ? (out as { items: unknown[] }).items.length
              : out
                ? 1
                : 0;
          counted(collection, n);
          return out;
        };
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return {
    store: spied,
    fullReads,
    statusReads,
    recordsRead,
    reset: () => {
      fullReads.splice(0);
      statusReads.splice(0);
      for (const key of Object.keys(recordsRead)) delete recordsRead[key as Collection];
    },
  };
}

/** Notes the requests `client` sends (for `fullQueries`). */
export function watchRequests(client: DynamoDBClient): SentRequest[] {
  const sent: SentRequest[] = [];
  recordRequests(client, sent);
  return sent;
}

/**
 * The requests that read a whole keyed collection: a Scan, a Query of a collection's own
 * partition (`<workspace>#<collection>[#<shard>]`) with no condition on the sort key, or a
 * Query of every run of a workflow (the runs-by-workflow index) without a Limit.
 */
export function fullQueries(sent: readonly SentRequest[]): string[] {
  const whole = new RegExp(`#(${[...KEYED_COLLECTIONS].join('|')})(#\\d+)?$`);
  return sent
    .filter(
      (r) =>
        r.command === 'ScanCommand' ||
        (r.command === 'QueryCommand' && whole.test(r.pk) && !r.prefix && r.limit === undefined) ||
        (r.command === 'QueryCommand' && r.index === RUNS_BY_WORKFLOW_INDEX.name && r.limit === undefined),
    )
    .map((r) => `${r.command} ${r.pk}`);
}

/** A folder the JSON-file store listed, relative to its state directory, and how many names it held. */
export interface Listing {
  dir: string;
  entries: number;
}

/**
 * Notes every folder listed under `stateDir` (the JSON-file store lists through
 * `fs.promises.readdir`) until `stop`: a listing whose size grows with the workspace's history
 * is a read that is not keyed, however few records it then reads.
 */
export function watchListings(stateDir: string): { listings: Listing[]; stop(): void } {
  const listings: Listing[] = [];
  const original = fsPromises.readdir;
  const watched = async (...args: Parameters<typeof fsPromises.readdir>) => {
    const names = (await (original as (...a: unknown[]) => Promise<unknown[]>)(...args)) as unknown[];
    const dir = path.relative(stateDir, String(args[0]));
    if (!dir.startsWith('..')) listings.push({ dir, entries: names.length });
    return names;
  };
  fsPromises.readdir = watched as typeof fsPromises.readdir;
  return { listings, stop: () => void (fsPromises.readdir = original) };
}

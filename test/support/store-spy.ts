/**
 * A store spy for "every read by key" tests: wraps any Store (JSON files or DynamoDB) and
 * notes each full read of a collection that has a key for the paths under test (its whole
 * `list`, or `listWithStatus` of a status the backends do not index). On DynamoDB,
 * `fullQueries` also names every Query of a collection's partition with neither a key
 * condition on the sort key nor a Limit (a page), and every Scan, from the client's requests.
 */
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
]);

export interface StoreSpy {
  /** The store to hand to the code under test. */
  store: Store;
  /** Each full read of a keyed collection, as `<method> <collection>`. */
  fullReads: string[];
  /** Forgets what was noted (after the seeding, before the path under test). */
  reset(): void;
}

/** Wraps `store`; every call is passed through, full reads of KEYED_COLLECTIONS noted. */
export function spyOnStore(store: Store): StoreSpy {
  const fullReads: string[] = [];
  const spied = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (name === 'list')
        return (collection: Collection) => {
          if (KEYED_COLLECTIONS.has(collection)) fullReads.push(`list ${collection}`);
          return target.list(collection);
        };
      if (name === 'listWithStatus')
        return (collection: Collection, status: string) => {
          if (KEYED_COLLECTIONS.has(collection) && !isIndexed(collection, status))
            fullReads.push(`listWithStatus ${collection} ${status}`);
          return target.listWithStatus(collection, status);
        };
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return { store: spied, fullReads, reset: () => void fullReads.splice(0) };
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

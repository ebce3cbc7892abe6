/**
 * A store that remembers, for one Lambda step or one HTTP request, the records it read and
 * wrote, so the same record is read from the backend once. Versioned records (runs,
 * decisions) stay correct under other writers: the cache holds what this store last read
 * or wrote, every write still goes to the backend with its condition, and a write that
 * loses its condition drops the record (or keeps the one it lost to), so the next read
 * sees the other writer. Index reads are never cached, and lists only of LISTED_COLLECTIONS
 * (kept up to date with this store's writes). Keep one per step or request, never across them.
 */
import { VersionConflictError } from '../errors/index.ts';
import {
  commitAll,
  getEach,
  type Collection,
  type CommitOptions,
  type JsonRecord,
  type Page,
  type PageRequest,
  type RecordRef,
  type Store,
  type Versioned,
  type Write,
  type WriteResult,
} from './store.ts';

/** The collections a step or request reads by id more than once. */
export const CACHED_COLLECTIONS: ReadonlySet<Collection> = new Set<Collection>([
  'runs',
  'workflows',
  'settings',
  'profile',
  'usage',
  'interrupts',
  'decisions',
  'domain_answers',
  'rule_sets',
  'rule_keys',
  // The agent function reads an answer's earlier learning failure with its batch (runs/learning.ts).
  'learning_failures',
  // The trigger function reads whether the workflow's schedule is paused with its batch.
  'schedules',
  // A step's or an answer's usage goes into its day's roll-up, read with its batch (recorder/usage-days.ts).
  'usage_days',
]);

/**
 * Collections listed more than once in one answer (the learner's rules, then the domain
 * proposal's): the list is read once and kept up to date with this store's own writes.
 */
export const LISTED_COLLECTIONS: ReadonlySet<Collection> = new Set<Collection>(['rules']);

const keyOf = (collection: Collection, id: string) => `${collection}\u0000${id}`;

/** A store over `inner` that reads each record of CACHED_COLLECTIONS once (see the file's comment). */
export class ReadCacheStore implements Store {
  /** Record, or null when the backend said there is none. */
  private readonly known = new Map<string, JsonRecord | null>();
  /** A listed collection's records by id (LISTED_COLLECTIONS, once listed). */
  private readonly lists = new Map<Collection, Map<string, JsonRecord>>();

  /** The backend's own keyed lists, when it has them (never cached). */
  readonly listRunsOf?: (workflowId: string, limit?: number) => Promise<JsonRecord[]>;
  readonly listByIdPrefix?: (collection: Collection, prefix: string) => Promise<JsonRecord[]>;
  readonly listNewest?: (collection: Collection, page: PageRequest) => Promise<Page>;
  readonly listPage?: (collection: Collection, prefix: string, page: PageRequest) => Promise<Page>;
  readonly listStatusPage?: (collection: Collection, status: string, page: PageRequest) => Promise<Page>;
  readonly countWithStatus?: (collection: Collection, status: string, prefix?: string) => Promise<number>;
  readonly exactStatusIndex?: boolean;

  constructor(
    readonly inner: Store,
    private readonly cached: ReadonlySet<Collection> = CACHED_COLLECTIONS,
  ) {
    if (inner.listRunsOf) this.listRunsOf = inner.listRunsOf.bind(inner);
    if (inner.listByIdPrefix) this.listByIdPrefix = inner.listByIdPrefix.bind(inner);
    if (inner.listNewest) this.listNewest = inner.listNewest.bind(inner);
    if (inner.listPage) this.listPage = inner.listPage.bind(inner);
    if (inner.listStatusPage) this.listStatusPage = inner.listStatusPage.bind(inner);
    if (inner.countWithStatus) this.countWithStatus = inner.countWithStatus.bind(inner);
    if (inner.exactStatusIndex) this.exactStatusIndex = true;
  }

  /**
   * Keeps records the caller just read from the backend another way (a keyed list), so they
   * are not read again. Only records that never change again belong here (a decision no
   * longer waiting): this store cannot tell a later write by another writer.
   */
  seed(collection: Collection, records: readonly JsonRecord[]): void {
    for (const record of records) this.remember(collection, record.id, record);
  }

  /** Reads every ref not yet known in one batched read (DynamoDB: one BatchGetItem per 100). */
  async prefetch(refs: readonly RecordRef[]): Promise<void> {
    await this.getRefs(refs);
  }

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    const [record] = await this.getRefs([{ collection, id }]);
    return record;
  }

  async getMany(collection: Collection, ids: readonly string[]): Promise<(JsonRecord | undefined)[]> {
    return this.getRefs(ids.map((id) => ({ collection, id })));
  }

  async getRefs(refs: readonly RecordRef[]): Promise<(JsonRecord | undefined)[]> {
    const missing = refs.filter(
      (r) => !this.cached.has(r.collection) || !this.known.has(keyOf(r.collection, r.id)),
    );
    const read =
      missing.length === 1
        ? [await this.inner.get(missing[0]!.collection, missing[0]!.id)]
        : await getEach(this.inner, missing);
    const fresh = new Map<string, JsonRecord | undefined>();
    missing.forEach((ref, i) => {
      fresh.set(keyOf(ref.collection, ref.id), read[i]);
      if (this.cached.has(ref.collection)) this.remember(ref.collection, ref.id, read[i] ?? null);
    });
    return refs.map((ref) => {
      const key = keyOf(ref.collection, ref.id);
      const record = fresh.has(key) ? fresh.get(key) : (this.known.get(key) ?? undefined);
      return record === undefined ? undefined : structuredClone(record);
    });
  }

  async list(collection: Collection): Promise<JsonRecord[]> {
    if (!LISTED_COLLECTIONS.has(collection)) return this.inner.list(collection);
    let listed = this.lists.get(collection);
    if (!listed) {
      listed = new Map((await this.inner.list(collection)).map((r) => [r.id, structuredClone(r)]));
      this.lists.set(collection, listed);
    }
    return [...listed.values()].map((r) => structuredClone(r));
  }

  listWithStatus(collection: Collection, status: string, prefix?: string): Promise<JsonRecord[]> {
    return this.inner.listWithStatus(collection, status, prefix);
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    try {
      const created = await this.inner.create(collection, record);
      this.remember(collection, created.id, created);
      return created;
    } catch (error) {
      this.forget(collection, record.id, error);
      throw error;
    }
  }

  async update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    try {
      const updated = await this.inner.update(collection, record, expectedVersion);
      this.remember(collection, updated.id, updated);
      return updated;
    } catch (error) {
      this.forget(collection, record.id, error);
      throw error;
    }
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    try {
      await this.inner.put(collection, record);
    } catch (error) {
      this.forget(collection, record.id, error);
      throw error;
    }
    this.remember(collection, record.id, record);
  }

  async delete(collection: Collection, id: string): Promise<void> {
    try {
      await this.inner.delete(collection, id);
    } catch (error) {
      this.forget(collection, id, error);
      throw error;
    }
    this.remember(collection, id, null);
  }

  async commit(writes: readonly Write[], options?: CommitOptions): Promise<WriteResult[]> {
    let results: WriteResult[];
    try {
      results = await commitAll(this.inner, writes, options);
    } catch (error) {
      for (const w of writes) this.forget(w.collection, w.record.id, error);
      throw error;
    }
    // Past the writes' results come the checks' (CommitOptions.checks): nothing to remember.
    results.slice(0, writes.length).forEach((result, i) => {
      const { collection, record } = writes[i]!;
      if (result.ok) this.remember(collection, record.id, result.record);
      else this.forget(collection, record.id, result.error);
    });
    return results;
  }

  private remember(collection: Collection, id: string, record: JsonRecord | null): void {
    if (this.cached.has(collection)) this.known.set(keyOf(collection, id), record && structuredClone(record));
    const listed = this.lists.get(collection);
    if (record) listed?.set(id, structuredClone(record));
    else listed?.delete(id);
  }

  /** After a failed write: keep the record it lost to when the error carries it, else read it again next time. */
  private forget(collection: Collection, id: string, error: unknown): void {
    this.known.delete(keyOf(collection, id));
    this.lists.delete(collection); // the list is read again when asked
    // A taken id (RecordExistsError) or an unknown failure: read the record again when asked.
    if (error instanceof VersionConflictError && typeof error.current?.id === 'string')
      this.remember(collection, id, error.current as JsonRecord);
  }
}

/** A fresh read cache over `store` (unwrapping one already cached, so caches never stack). */
export function readCache(store: Store): ReadCacheStore {
  return new ReadCacheStore(store instanceof ReadCacheStore ? store.inner : store);
}

/** `store.prefetch(refs)` when the store is a read cache; otherwise nothing (reads happen when asked). */
export async function prefetch(store: Store, refs: readonly RecordRef[]): Promise<void> {
  if (store instanceof ReadCacheStore) await store.prefetch(refs);
}

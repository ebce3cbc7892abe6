import { RecordExistsError, VersionConflictError } from '../shared/errors/index.ts';
import {
  isIndexed,
  type Collection,
  type JsonRecord,
  type Store,
  type Versioned,
  type Write,
  type WriteResult,
} from '../shared/store/store.ts';

/**
 * A Store held in this process's memory, for the engine benchmark's in-memory variant: the
 * same contract as the JSON-file store (conditional create and update, records copied in and
 * out as JSON, the status index and keyed prefix reads) with no I/O, so the difference
 * between the two is what the disk costs. Nothing survives the process.
 */
export class MemoryStore implements Store {
  readonly exactStatusIndex = true;
  /** Each record as its JSON text, so a caller never shares an object with the store. */
  private readonly collections = new Map<Collection, Map<string, string>>();
  /** The ids under each indexed status (INDEXED_STATUSES), by `<collection>/<status>`. */
  private readonly byStatus = new Map<string, Set<string>>();
  /** Where each record in `byStatus` is, by `<collection>/<id>`. */
  private readonly indexedAs = new Map<string, string>();

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    const text = this.of(collection).get(id);
    return text === undefined ? undefined : (JSON.parse(text) as JsonRecord);
  }

  async list(collection: Collection): Promise<JsonRecord[]> {
    return [...this.of(collection).values()].map((text) => JSON.parse(text) as JsonRecord);
  }

  async listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]> {
    if (!isIndexed(collection, status))
      return (await this.list(collection)).filter((r) => r.status === status);
    const ids = [...(this.byStatus.get(`${collection}/${status}`) ?? [])];
    return (await Promise.all(ids.map((id) => this.get(collection, id)))).filter((r) => r !== undefined);
  }

  async listByIdPrefix(collection: Collection, prefix: string): Promise<JsonRecord[]> {
    const out: JsonRecord[] = [];
    for (const [id, text] of this.of(collection))
      if (id.startsWith(prefix)) out.push(JSON.parse(text) as JsonRecord);
    return out;
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    if (this.of(collection).has(record.id))
      throw new RecordExistsError(`${collection}/${record.id} already exists.`);
    return this.write(collection, { ...record, version: 1 });
  }

  async update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    const records = this.of(collection);
    const text = records.get(record.id);
    const current = text === undefined ? undefined : (JSON.parse(text) as JsonRecord);
    if (current?.version !== expectedVersion) {
      const found = current === undefined ? 'missing' : `at version ${String(current.version)}`;
      throw new VersionConflictError(
        `${collection}/${record.id} is ${found}, not version ${expectedVersion}; re-read and retry.`,
        current,
      );
    }
    return this.write(collection, { ...record, version: expectedVersion + 1 });
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    this.write(collection, record);
  }

  async delete(collection: Collection, id: string): Promise<void> {
    this.unindex(collection, id);
    this.of(collection).delete(id);
  }

  /**
   * Many writes at once, as the durable stores' `commit` (Store's optional batch write):
   * each write's condition is checked on its own, a failed one is reported in its result
   * and the others still land; results in the writes' order.
   */
  async commit(writes: readonly Write[]): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    for (const write of writes) {
      try {
        if (write.kind === 'create')
          results.push({ ok: true, record: await this.create(write.collection, write.record) });
        else if (write.kind === 'update')
          results.push({
            ok: true,
            record: await this.update(write.collection, write.record, write.expectedVersion),
          });
        else {
          await this.put(write.collection, write.record);
          results.push({ ok: true, record: write.record });
        }
      } catch (error) {
        if (!(error instanceof RecordExistsError || error instanceof VersionConflictError)) throw error;
        results.push({ ok: false, error });
      }
    }
    return results;
  }

  private of(collection: Collection): Map<string, string> {
    let records = this.collections.get(collection);
    if (!records) {
      records = new Map();
      this.collections.set(collection, records);
    }
    return records;
  }

  /** Stores the record's JSON and returns what a reader would get back (undefined fields dropped). */
  private write<T extends JsonRecord>(collection: Collection, record: T): T {
    const text = JSON.stringify(record);
    this.unindex(collection, record.id);
    this.of(collection).set(record.id, text);
    if (isIndexed(collection, record.status)) {
      const key = `${collection}/${record.status}`;
      this.byStatus.set(key, (this.byStatus.get(key) ?? new Set()).add(record.id));
      this.indexedAs.set(`${collection}/${record.id}`, key);
    }
    return JSON.parse(text) as T;
  }

  /** Takes the record out of its status's index, if it is in one. */
  private unindex(collection: Collection, id: string): void {
    const at = `${collection}/${id}`;
    const key = this.indexedAs.get(at);
    if (key === undefined) return;
    this.byStatus.get(key)?.delete(id);
    this.indexedAs.delete(at);
  }
}

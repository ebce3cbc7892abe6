import { RecordExistsError, VersionConflictError } from '../shared/errors/index.ts';
import type { Collection, JsonRecord, Store, Versioned, Write, WriteResult } from '../shared/store/store.ts';

/**
 * A Store held in this process's memory, for the engine benchmark's in-memory variant: the
 * same contract as the JSON-file store (conditional create and update, records copied in and
 * out as JSON) with no I/O, so the difference between the two is what the disk costs.
 * Nothing survives the process.
 */
export class MemoryStore implements Store {
  /** Each record as its JSON text, so a caller never shares an object with the store. */
  private readonly collections = new Map<Collection, Map<string, string>>();

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    const text = this.of(collection).get(id);
    return text === undefined ? undefined : (JSON.parse(text) as JsonRecord);
  }

  async list(collection: Collection): Promise<JsonRecord[]> {
    return [...this.of(collection).values()].map((text) => JSON.parse(text) as JsonRecord);
  }

  async listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]> {
    return (await this.list(collection)).filter((r) => r.status === status);
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    const records = this.of(collection);
    if (records.has(record.id)) throw new RecordExistsError(`${collection}/${record.id} already exists.`);
    return this.write(records, { ...record, version: 1 });
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
    return this.write(records, { ...record, version: expectedVersion + 1 });
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    this.write(this.of(collection), record);
  }

  async delete(collection: Collection, id: string): Promise<void> {
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
  private write<T extends JsonRecord>(records: Map<string, string>, record: T): T {
    const text = JSON.stringify(record);
    records.set(record.id, text);
    return JSON.parse(text) as T;
  }
}

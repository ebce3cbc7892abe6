/**
 * The store port: one interface, two backends (JSON files, DynamoDB).
 * Records are plain JSON objects with a string `id`. Every record that is
 * updated carries a `version`; `update` is conditional on it, so two writers
 * cannot both win.
 */
export const COLLECTIONS = [
  'workflows',
  'runs',
  'interrupts',
  'decisions',
  'rules',
  'proposals',
  'audit',
  'tickets',
  'outcomes',
  'settings',
  'tokens',
  'credentials',
  'tool_servers',
  'sessions',
  'usage',
] as const;

export type Collection = (typeof COLLECTIONS)[number];

export type JsonRecord = { id: string } & Record<string, unknown>;
export type Versioned<T extends JsonRecord = JsonRecord> = T & { version: number };

export interface Store {
  /** The record, or undefined when there is none. */
  get(collection: Collection, id: string): Promise<JsonRecord | undefined>;
  /** Every record of the collection (order unspecified). */
  list(collection: Collection): Promise<JsonRecord[]>;
  /**
   * The records of the collection whose `status` is `status` (order unspecified). Where
   * the backend indexes it (DynamoDB: pending decisions, running and waiting runs) only
   * those are read; the index may lag a write by a moment.
   */
  listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]>;
  /**
   * Optional: the runs of one workflow, newest first, where the backend indexes them
   * (DynamoDB: the runs-by-workflow index). Without it, callers list and filter.
   */
  listRunsOf?(workflowId: string): Promise<JsonRecord[]>;
  /** Creates the record with `version: 1`; throws RecordExistsError if the id is taken. */
  create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>>;
  /**
   * Replaces the record when its stored version equals `expectedVersion`, bumping the
   * version; throws VersionConflictError (carrying the stored record) otherwise.
   */
  update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>>;
  /** Unconditional upsert, for append-only or last-writer-wins records (audit, settings). */
  put(collection: Collection, record: JsonRecord): Promise<void>;
  /** Removes the record; no error if it is absent. */
  delete(collection: Collection, id: string): Promise<void>;
}

/**
 * The store port: one interface, two backends (JSON files, DynamoDB).
 * Records are plain JSON objects with a string `id`. Every record that is
 * updated carries a `version`; `update` is conditional on it, so two writers
 * cannot both win.
 */
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';

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
  'source_watermarks',
  'profile',
  'skills',
  'agents',
  'artifacts',
  'schedules',
  'chats',
  // A chat's transcript, ten turns to a record (`<chat id>:<page>`).
  'chat_turns',
  // An assistant turn sent off the request path, claimed by the one delivery that answers it: shared/assistant/turn-once.ts.
  'turn_claims',
  // Platform-wide (the reserved `_platform` workspace): the workspaces and the API keys.
  'workspaces',
  'api_keys',
  // Which answers teach about a sender domain, per (workflow, domain): shared/runs/domain-answers.ts.
  'domain_answers',
  // A copy of one scope's live rules (a workflow's, or `*`): shared/memory/rule-sets.ts.
  'rule_sets',
  // The live rules by what they match (`<scope>|s|<sender>`, `|d|<domain>`, `|k`): shared/memory/rule-keys.ts.
  'rule_keys',
  // How often each rule fired and when last (by rule id), folded once per run: shared/memory/rule-fires.ts.
  'rule_fires',
  // An answer the learner could not learn from yet, and why (by decision id): shared/runs/learning.ts.
  'learning_failures',
  // The usage of one workflow on one UTC day (a copy of each of its usage records): shared/recorder/usage-days.ts.
  'usage_days',
  // What each workflow's EventBridge schedule was last made to be (by workflow id): shared/schedules/synced.ts.
  'schedule_syncs',
] as const;

export type Collection = (typeof COLLECTIONS)[number];

/**
 * The statuses each backend indexes, per collection: what is still moving, never the history
 * (DynamoDB: a sparse global index; JSON files: a marker file per record, json-status-index.ts).
 */
export const INDEXED_STATUSES: Partial<Record<Collection, readonly string[]>> = {
  decisions: ['pending'],
  runs: ['running', 'waiting'],
  // Claims not yet settled: the sweeper and a failed run look for these, never at every outcome.
  outcomes: ['acting', 'held'],
  // Open domain proposals: Memory and `handoff rules` list these, never the decided ones.
  proposals: ['proposed'],
};

/** Whether the backends index `status` of `collection` (INDEXED_STATUSES). */
export function isIndexed(collection: Collection, status: unknown): status is string {
  return typeof status === 'string' && (INDEXED_STATUSES[collection]?.includes(status) ?? false);
}

/**
 * The collections each backend also indexes by time (newest first: `listNewest`), and the
 * time a record is indexed at: settled decisions (answered or expired) by when they were
 * settled, runs by their start, artifacts by when they were made. Undefined: the record is not in the time index.
 */
export const TIME_INDEXED: Partial<Record<Collection, (record: JsonRecord) => string | undefined>> = {
  decisions: (r) => {
    if (typeof r.status !== 'string' || r.status === 'pending') return undefined;
    const answer = r.answer as { at?: unknown } | null | undefined;
    const at = typeof answer?.at === 'string' ? answer.at : r.expires_at;
    return typeof at === 'string' ? at : undefined;
  },
  runs: (r) => (typeof r.started_at === 'string' ? r.started_at : undefined),
  // What runs produced, by when: the Artifacts list of a whole workspace (artifacts/artifact-list.ts).
  artifacts: (r) => (typeof r.created_at === 'string' ? r.created_at : undefined),
  // Chats by their last use: the Chat page and `handoff chats` (chats/chat-list.ts).
  chats: (r) => (typeof r.updated_at === 'string' ? r.updated_at : undefined),
};

/**
 * The time-indexed collections whose time moves when a record is rewritten (a chat's last
 * use): a backend drops the record's entry at its old time (DynamoDB: the item's index keys
 * are replaced; JSON files: the old marker removed after the write).
 */
export const TIME_MOVES: ReadonlySet<Collection> = new Set<Collection>(['chats']);

/** The time `record` of `collection` is indexed at (TIME_INDEXED), or undefined. */
export function timeKeyOf(collection: Collection, record: JsonRecord): string | undefined {
  return TIME_INDEXED[collection]?.(record);
}

/** A page of a list: at most `limit` records, and where the next page starts (null: no more). */
export interface Page {
  items: JsonRecord[];
  next_cursor: string | null;
}

/** Which page to read: how many, and the `next_cursor` of the page before (absent: the first). */
export interface PageRequest {
  limit: number;
  /** `listNewest` also takes a time (ISO, UTC) here: the page starts just before it, on every backend. */
  cursor?: string | null | undefined;
  /** `listPage` only: from the greatest id down (ids made by `newId` sort by time: newest first). */
  descending?: boolean | undefined;
}

export type JsonRecord = { id: string } & Record<string, unknown>;
export type Versioned<T extends JsonRecord = JsonRecord> = T & { version: number };

export interface Store {
  /** The record, or undefined when there is none. */
  get(collection: Collection, id: string): Promise<JsonRecord | undefined>;
  /**
   * Optional: the records of many ids of one collection, in the ids' order (undefined for
   * each missing one), read in as few requests as the backend allows (DynamoDB: one
   * BatchGetItem per 100). `getAll` falls back to one `get` per id.
   */
  getMany?(collection: Collection, ids: readonly string[]): Promise<(JsonRecord | undefined)[]>;
  /**
   * Optional: the records of several collections, in the refs' order (undefined for each
   * missing one), in as few requests as the backend allows (DynamoDB: one BatchGetItem per
   * 100). `getEach` falls back to one `get` per ref.
   */
  getRefs?(refs: readonly RecordRef[]): Promise<(JsonRecord | undefined)[]>;
  /** Every record of the collection (order unspecified). */
  list(collection: Collection): Promise<JsonRecord[]>;
  /**
   * The records of the collection whose `status` is `status` (order unspecified). Where
   * the backend indexes it (INDEXED_STATUSES) only those are read; DynamoDB's index may lag
   * a write by a moment. With `prefix`, a backend may read only the ids starting with it
   * (JSON files: the markers' names; one run's waiting questions) and may return more: the
   * caller filters.
   */
  listWithStatus(collection: Collection, status: string, prefix?: string): Promise<JsonRecord[]>;
  /**
   * True where `listWithStatus` on an indexed status reads its index and sees every write
   * that has landed (JSON files): the cheapest exact read of what is still moving. Absent
   * where the index may lag (DynamoDB) or there is none.
   */
  readonly exactStatusIndex?: boolean;
  /**
   * Optional: the runs of one workflow, newest first, where the backend indexes them
   * (DynamoDB: the runs-by-workflow index); the newest `limit` only when it is given (one
   * Query with that Limit). Without it, callers walk the by-time index (`newestRunsOf`).
   */
  listRunsOf?(workflowId: string, limit?: number): Promise<JsonRecord[]>;
  /**
   * Optional: the records of the collection whose id starts with `prefix`, where the backend
   * can read just those (DynamoDB: one Query on the prefix's sort-key range). Without it,
   * `listByIdPrefix` lists and filters.
   */
  listByIdPrefix?(collection: Collection, prefix: string): Promise<JsonRecord[]>;
  /**
   * Optional: a page of the time-indexed records of the collection (TIME_INDEXED), newest
   * first, reading what it returns plus one (DynamoDB: one Query on the by-time index; JSON
   * files: the day folders of the time index). Without it, `listNewest` lists and sorts.
   */
  listNewest?(collection: Collection, page: PageRequest): Promise<Page>;
  /**
   * Optional: a page of the records whose id starts with `prefix`, in id order, reading what
   * it returns plus one where the backend can (DynamoDB: one Query per partition with a
   * Limit). Without it, `listPage` lists by prefix and slices.
   */
  listPage?(collection: Collection, prefix: string, page: PageRequest): Promise<Page>;
  /**
   * Optional: a page of the records in an indexed status (INDEXED_STATUSES), reading what it
   * returns plus one: DynamoDB in the status index's order (when asked or started, then id);
   * JSON files in id order (a run's question ids share its key, so a run's questions stay
   * together either way). Without it, `listStatusPage` reads the status and slices by id.
   */
  listStatusPage?(collection: Collection, status: string, page: PageRequest): Promise<Page>;
  /**
   * Optional: how many records are in an indexed status (of them, those whose id starts with
   * `prefix`), without returning them (DynamoDB: a COUNT Query of the status index, or of the
   * prefix's keys; JSON files: the index's markers, never fewer than the truth). Without it,
   * `countWithStatus` reads the status.
   */
  countWithStatus?(collection: Collection, status: string, prefix?: string): Promise<number>;
  /**
   * Optional: moves records written by an earlier build to the layout this one reads by key
   * (JSON files: a keyed record into its parent's folder); resumable. Returns how many moved.
   * `handoff store migrate` runs it.
   */
  relayout?(): Promise<number>;
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
  /**
   * Carries out many writes as one durable write where the backend can (JSON files: one
   * journal append; DynamoDB: one transaction per 100). Each write's condition is checked
   * on its own: one that fails (a create of a taken id, an update of a moved version) is
   * reported in its result and the others still land. Results in the writes' order.
   * Optional: `commitAll` falls back to one call per write.
   */
  commit?(writes: readonly Write[], options?: CommitOptions): Promise<WriteResult[]>;
}

/**
 * `interim`: the writes will be overwritten by this process's next commit in a moment (a
 * page's claims, then its record): a backend may keep them in one place until then (JSON
 * files: the pending file), durable and seen by every reader all the same.
 */
export interface CommitOptions {
  interim?: boolean;
  /**
   * Records that must still be at a version when the writes land. A backend that commits
   * atomically checks them in the same write (DynamoDB: a ConditionCheck in the writes'
   * transaction) and appends one result per check after the writes' results; any other
   * ignores them. Read them with `checksHeld`: a check without a result proves nothing.
   */
  checks?: readonly VersionCheck[];
}

/** A record that must still be at `expectedVersion` when a commit lands (see `CommitOptions.checks`). */
export type VersionCheck = RecordRef & { expectedVersion: number };

/**
 * True when the backend proved every check of a commit of `writeCount` writes: each has its
 * result (after the writes') and each held. False when any failed or was not checked.
 */
export function checksHeld(results: readonly WriteResult[], writeCount: number, checks: number): boolean {
  if (checks === 0) return false;
  for (let j = 0; j < checks; j++) if (results[writeCount + j]?.ok !== true) return false;
  return true;
}

/** Where one record is: its collection and id. */
export type RecordRef = { collection: Collection; id: string };

/** One write of a `commit`: the same three conditional kinds as the single calls. */
export type Write =
  | { kind: 'create'; collection: Collection; record: JsonRecord }
  | { kind: 'update'; collection: Collection; record: JsonRecord; expectedVersion: number }
  | { kind: 'put'; collection: Collection; record: JsonRecord };

/** A write that landed (with the record as stored), or the RecordExistsError / VersionConflictError it met. */
export type WriteResult = { ok: true; record: JsonRecord } | { ok: false; error: Error };

/** `store.commit` when the backend has it, else each write on its own, in order. */
export async function commitAll(
  store: Store,
  writes: readonly Write[],
  options: CommitOptions = {},
): Promise<WriteResult[]> {
  if (writes.length === 0) return [];
  if (store.commit) return store.commit(writes, options);
  const results: WriteResult[] = [];
  for (const write of writes) {
    try {
      if (write.kind === 'create')
        results.push({ ok: true, record: await store.create(write.collection, write.record) });
      else if (write.kind === 'update')
        results.push({
          ok: true,
          record: await store.update(write.collection, write.record, write.expectedVersion),
        });
      else {
        await store.put(write.collection, write.record);
        results.push({ ok: true, record: write.record });
      }
    } catch (error) {
      if (!(error instanceof RecordExistsError || error instanceof VersionConflictError)) throw error;
      results.push({ ok: false, error });
    }
  }
  return results;
}

/** `store.getMany` when the backend has it, else one `get` per id; results in the ids' order. */
export async function getAll(
  store: Store,
  collection: Collection,
  ids: readonly string[],
): Promise<(JsonRecord | undefined)[]> {
  if (ids.length === 0) return [];
  if (store.getMany) return store.getMany(collection, ids);
  return Promise.all(ids.map((id) => store.get(collection, id)));
}

/** The records whose id starts with `prefix`: the backend's keyed read where it has one, else list and filter. */
export async function listByIdPrefix(
  store: Store,
  collection: Collection,
  prefix: string,
): Promise<JsonRecord[]> {
  if (store.listByIdPrefix) return store.listByIdPrefix(collection, prefix);
  return (await store.list(collection)).filter((r) => r.id.startsWith(prefix));
}

/** `store.getRefs` when the backend has it, else one `get` per ref; results in the refs' order. */
export async function getEach(store: Store, refs: readonly RecordRef[]): Promise<(JsonRecord | undefined)[]> {
  if (refs.length === 0) return [];
  if (store.getRefs) return store.getRefs(refs);
  return Promise.all(refs.map((ref) => store.get(ref.collection, ref.id)));
}

/** The sort key of a record in the time index: its time, then its id (ties broken alike on every backend). */
export function timeSortKey(collection: Collection, record: JsonRecord): string | undefined {
  const time = timeKeyOf(collection, record);
  return time === undefined ? undefined : `${time}#${record.id}`;
}

/** `store.listNewest` when the backend has it, else every record listed, sorted newest first and sliced. */
export async function listNewest(store: Store, collection: Collection, page: PageRequest): Promise<Page> {
  if (store.listNewest) return store.listNewest(collection, page);
  return newestOf(await store.list(collection), collection, page);
}

/** The page `listNewest` gives, made from every record of the collection (for a backend without a time index). */
export function newestOf(records: readonly JsonRecord[], collection: Collection, page: PageRequest): Page {
  const keyed = records
    .map((record) => ({ record, key: timeSortKey(collection, record) }))
    .filter((k): k is { record: JsonRecord; key: string } => k.key !== undefined)
    .filter((k) => !page.cursor || k.key < page.cursor)
    .sort((a, b) => b.key.localeCompare(a.key));
  return sliced(keyed, page.limit);
}

/** `store.listPage` when the backend has it, else the records by prefix, in id order, sliced after the cursor. */
export async function listPage(
  store: Store,
  collection: Collection,
  prefix: string,
  page: PageRequest,
): Promise<Page> {
  if (store.listPage) return store.listPage(collection, prefix, page);
  const keyed = inIdOrder(await listByIdPrefix(store, collection, prefix), page).map((record) => ({
    record,
    key: record.id,
  }));
  return sliced(keyed, page.limit);
}

/** `store.listStatusPage` when the backend has it, else the records in the status, in id order, sliced after the cursor. */
export async function listStatusPage(
  store: Store,
  collection: Collection,
  status: string,
  page: PageRequest,
): Promise<Page> {
  if (store.listStatusPage && isIndexed(collection, status))
    return store.listStatusPage(collection, status, page);
  const records = inIdOrder(await store.listWithStatus(collection, status), page);
  return sliced(
    records.map((record) => ({ record, key: record.id })),
    page.limit,
  );
}

/** `store.countWithStatus` when the backend has it, else the status read and counted (ids starting with `prefix`). */
export async function countWithStatus(
  store: Store,
  collection: Collection,
  status: string,
  prefix = '',
): Promise<number> {
  if (store.countWithStatus && isIndexed(collection, status))
    return store.countWithStatus(collection, status, prefix);
  return (await store.listWithStatus(collection, status)).filter((r) => r.id.startsWith(prefix)).length;
}

/** `records` after the page's cursor, in its id order (ascending, or descending when asked). */
export function inIdOrder<T extends { id: string }>(records: readonly T[], page: PageRequest): T[] {
  const after = (id: string) => !page.cursor || (page.descending ? id < page.cursor : id > page.cursor);
  const sign = page.descending ? -1 : 1;
  return records.filter((r) => after(r.id)).sort((a, b) => sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The first `limit` of `keyed` as a page; its cursor is the last shown's key when more follow. */
export function sliced(keyed: readonly { record: JsonRecord; key: string }[], limit: number): Page {
  const shown = keyed.slice(0, limit);
  return {
    items: shown.map((k) => k.record),
    next_cursor: keyed.length > limit && shown.length > 0 ? shown.at(-1)!.key : null,
  };
}

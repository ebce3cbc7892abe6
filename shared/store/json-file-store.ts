import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  promises as fs,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { crashPoint } from '../config/processes.ts';
import { InvalidInputError, RecordExistsError, VersionConflictError } from '../errors/index.ts';
import {
  AppliedSchema,
  PendingReader,
  copyOf,
  keyOf,
  overlayOf,
  readPending,
  removePending,
  writePending,
  type Applied,
  type Overlay,
} from './json-pending.ts';
import {
  inIdOrder,
  isIndexed,
  sliced,
  type Collection,
  type CommitOptions,
  type JsonRecord,
  type Page,
  type PageRequest,
  type Store,
  type Versioned,
  type Write,
  type WriteResult,
} from './store.ts';
import {
  LIST_BATCH,
  breakStaleLock,
  ensureDir,
  errorCode,
  isRecordName,
  isStale,
  namesIn,
  readFiles,
  readRecord,
  removeDeadTemps,
  removeLeftovers,
  syncQuietly,
  tempName,
  unlinkQuietlySync,
  withLock,
  writeTempSync,
} from './json-files.ts';
import { StatusIndex, type FileWrite } from './json-status-index.ts';
import { TimeIndex } from './json-time-index.ts';
import { BUCKETED, BUCKETED_MARK, BUCKET_FOLDER, bucketOf } from './json-buckets.ts';

const LONGEST_SUFFIX = '.json.lock.break';
// Keep every file we make for a record (record, lock, breaker) within the usual 255-byte name limit.
const MAX_ENCODED_ID = 255 - LONGEST_SUFFIX.length;

/**
 * Turns a record id into a safe file name stem: percent-encoded, with a leading
 * '.' escaped so '.', '..' and hidden names cannot occur. Temp files start with
 * '.', so they can never collide with a record.
 */
export function encodeId(id: string): string {
  if (typeof id !== 'string' || id === '')
    throw new InvalidInputError('A record id must be a non-empty string.');
  let encoded: string;
  try {
    encoded = encodeURIComponent(id);
  } catch (err) {
    throw new InvalidInputError(`Record id ${JSON.stringify(id)} is not valid Unicode.`, { cause: err });
  }
  if (encoded.startsWith('.')) encoded = `%2E${encoded.slice(1)}`;
  if (encoded.length > MAX_ENCODED_ID) {
    throw new InvalidInputError(
      `Record id is too long for the JSON file store (${encoded.length} > ${MAX_ENCODED_ID} encoded).`,
    );
  }
  return encoded;
}

/** The store-wide lock every write holds, in the state directory. */
const STORE_LOCK = '.store.lock';
/** The write-ahead journal: one line per commit, appended and synced before any record file changes. */
const JOURNAL = '.journal';
/** Enough bytes for the journal's first line (`{"journal":1,"boot":"<uuid>"}`). */
const JOURNAL_HEAD_BYTES = 256;
/** Past this size the journal is checkpointed: the record files it names are synced, then it is emptied. */
const JOURNAL_LIMIT = 8 * 1024 * 1024;

type Op = Write | { kind: 'delete'; collection: Collection; id: string };

/**
 * A Store kept as one JSON file per record under `<stateDir>/<collection>/`.
 *
 * Every write, alone or in a `commit` of many, holds one store-wide lock file (naming its
 * owner, so a dead owner's lock is broken at once), checks its conditions against the
 * record files, appends the commit to a journal and syncs it (the one durable write),
 * then replaces each record file (temp file + rename, not synced). An interim commit (claims
 * soon settled) leaves its records in one pending file instead, laid over the record files by
 * every reader and applied by the next write (json-pending.ts). A process killed between the
 * journal and the record files leaves its commit as the journal's last line: whoever breaks
 * its lock applies the pending file and that line again first. After a reboot (the boot id in
 * the journal's first line differs) every line is applied again, in order, since record
 * files written without a sync may be lost; a checkpoint syncs them and empties the journal.
 */
export class JsonFileStore implements Store {
  private readonly made = new Set<string>();
  private recovered: Promise<void> | null = null;
  private readonly pending: PendingReader;
  private readonly index: StatusIndex;
  private readonly times: TimeIndex;
  private readonly timesBuilt = new Set<Collection>();
  /** Bucketed collections known to hold no keyed record in their flat folder (json-buckets.ts). */
  private readonly noFlat = new Set<Collection>();
  readonly exactStatusIndex = true;

  constructor(private readonly stateDir: string) {
    this.pending = new PendingReader(stateDir);
    this.index = new StatusIndex(stateDir, (collection) => this.dirFor(collection));
    this.times = new TimeIndex(stateDir);
  }

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    await this.recover();
    return this.readOver(this.pending.overlay(), collection, id);
  }

  async getMany(collection: Collection, ids: readonly string[]): Promise<(JsonRecord | undefined)[]> {
    await this.recover();
    const overlay = this.pending.overlay();
    return Promise.all(ids.map((id) => this.readOver(overlay, collection, id)));
  }

  /** An indexed status reads the records its markers name (json-status-index.ts), others every record. */
  async listWithStatus(collection: Collection, status: string, prefix = ''): Promise<JsonRecord[]> {
    if (!isIndexed(collection, status))
      return (await this.list(collection)).filter((r) => r.status === status);
    await this.statusIndexReady(collection);
    // With a prefix only the markers naming its ids are read (their names are the ids, encoded).
    const named = await this.readNamed(collection, async () =>
      (await this.index.markedNames(collection, status)).filter((n) =>
        decodeURIComponent(n).startsWith(prefix),
      ),
    );
    return named.filter((r) => r.status === status);
  }

  /** The status's records in id order from its markers' names: only the page's files (and one more) are read. */
  async listStatusPage(collection: Collection, status: string, page: PageRequest): Promise<Page> {
    const overlay = await this.statusIndexReady(collection);
    const ordered = inIdOrder(
      [...(await this.idsWithStatus(collection, status, overlay))].map((id) => ({ id })),
      page,
    );
    const read: { record: JsonRecord; key: string }[] = [];
    for (const { id } of ordered) {
      const record = await this.readOver(overlay, collection, id);
      if (record?.status === status) read.push({ record, key: id });
      if (read.length > page.limit) break;
    }
    return sliced(read, page.limit);
  }

  /** How many records the status's markers name (a crash may leave one too many until the journal's replay). */
  async countWithStatus(collection: Collection, status: string, prefix = ''): Promise<number> {
    const overlay = await this.statusIndexReady(collection);
    let count = 0;
    for (const id of await this.idsWithStatus(collection, status, overlay))
      if (id.startsWith(prefix)) count++;
    return count;
  }

  /** Recovers, and makes the collection's status markers again when its folder changed behind the store. */
  private async statusIndexReady(collection: Collection): Promise<Overlay> {
    await this.recover();
    if (!this.index.isCurrent(collection))
      await withLock(
        path.join(this.stateDir, STORE_LOCK),
        async () => {
          if (!this.index.isCurrent(collection))
            await this.index.rebuild(collection, await this.fileWrites(collection));
        },
        () => this.replayLast(),
      );
    return this.pending.overlay(); // before the markers: see readOver
  }

  /** The ids the status's markers name, with the pending commit's records of the collection laid over them. */
  private async idsWithStatus(
    collection: Collection,
    status: string,
    overlay: Overlay,
  ): Promise<Set<string>> {
    const ids = new Set(
      (await this.index.markedNames(collection, status))
        .filter(isRecordName)
        .map((n) => decodeURIComponent(n.slice(0, -'.json'.length))),
    );
    const prefix = `${collection}/`;
    for (const [key, record] of overlay)
      if (key.startsWith(prefix)) {
        const id = key.slice(prefix.length);
        if (record?.status === status) ids.add(id);
        else ids.delete(id);
      }
    return ids;
  }

  /**
   * The records whose id starts with `prefix`: only their files are read, found by name (a
   * prefix that names a parent key lists that key's folder alone: json-buckets.ts).
   */
  async listByIdPrefix(collection: Collection, prefix: string): Promise<JsonRecord[]> {
    if (prefix === '') return this.list(collection);
    await this.recover();
    const named = await this.readIds(collection, await this.idsWithPrefix(collection, prefix));
    return named.filter((r) => r.id.startsWith(prefix));
  }

  /** The ids of the collection's record files whose id starts with `prefix`, from the folders' names. */
  private async idsWithPrefix(collection: Collection, prefix: string): Promise<string[]> {
    const stem = prefix === '' ? '' : encodeId(prefix);
    const dir = this.dirFor(collection);
    const bucket = bucketOf(collection, prefix);
    const dirs = bucket ? [path.join(dir, bucket)] : [dir];
    if (bucket && (await this.flatMayHold(collection))) dirs.push(dir);
    const names: string[] = [];
    for (const d of dirs) names.push(...(await namesIn(d)));
    // A prefix shorter than a parent key may match records of any key's folder.
    if (!bucket && BUCKETED.has(collection))
      for (const sub of names.filter((n) => BUCKET_FOLDER.test(n)))
        names.push(...(await namesIn(path.join(dir, sub))));
    return [
      ...new Set(
        names
          .filter((n) => n.startsWith(stem) && isRecordName(n))
          .map((n) => decodeURIComponent(n.slice(0, -'.json'.length))),
      ),
    ];
  }

  /** The records of `ids` (a vanished one skipped), with the pending commit laid over the collection. */
  private async readIds(collection: Collection, ids: readonly string[]): Promise<JsonRecord[]> {
    const overlay = this.pending.overlay(); // before the files: see readOver
    const records: JsonRecord[] = [];
    for (let i = 0; i < ids.length; i += LIST_BATCH) {
      const batch = await Promise.all(
        ids.slice(i, i + LIST_BATCH).map((id) => this.readFile(collection, id)),
      );
      for (const r of batch) if (r !== undefined) records.push(r);
    }
    return overlaid(records, overlay, collection);
  }

  /** A record's file, read; a keyed record of a collection from before buckets may still be flat. */
  private async readFile(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    const found = await readRecord(this.fileFor(collection, id));
    if (found !== undefined || bucketOf(collection, id) === null) return found;
    return (await this.flatMayHold(collection)) ? readRecord(this.flatFileFor(collection, id)) : undefined;
  }

  /** Whether the bucketed collection's flat folder may hold keyed records (no `.bucketed` in it yet). */
  private async flatMayHold(collection: Collection): Promise<boolean> {
    if (this.noFlat.has(collection)) return false;
    if (existsSync(path.join(this.dirFor(collection), BUCKETED_MARK))) {
      this.noFlat.add(collection);
      return false;
    }
    return true;
  }

  /**
   * Moves the keyed records a build before buckets kept flat into their parent's folder, then
   * marks each bucketed collection (`.bucketed`): from then on a read by parent lists one folder.
   * Under the store lock; a rename is atomic, so a move killed midway is finished by the next.
   * Returns how many records moved.
   */
  async relayout(): Promise<number> {
    await this.recover();
    let moved = 0;
    for (const collection of BUCKETED) {
      if (!(await this.flatMayHold(collection))) continue;
      await withLock(
        path.join(this.stateDir, STORE_LOCK),
        async () => {
          const dir = this.dirFor(collection);
          for (const name of (await namesIn(dir)).filter(isRecordName)) {
            const id = decodeURIComponent(name.slice(0, -'.json'.length));
            if (bucketOf(collection, id) === null) continue;
            const to = this.fileFor(collection, id);
            mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
            // A copy already in its folder was written after the flat one: the flat one is stale.
            if (existsSync(to)) unlinkQuietlySync(path.join(dir, name));
            else renameSync(path.join(dir, name), to);
            moved += 1;
          }
          if (existsSync(dir)) {
            await syncQuietly(dir);
            closeSync(openSync(path.join(dir, BUCKETED_MARK), 'a', 0o600));
          }
        },
        () => this.replayLast(),
      );
      this.noFlat.add(collection);
    }
    return moved;
  }

  /**
   * A page of the collection's time-indexed records, newest first, read from the time index
   * (json-time-index.ts): the records it shows plus one. A collection written before the
   * index is marked from its records first, once.
   */
  async listNewest(collection: Collection, page: PageRequest): Promise<Page> {
    await this.recover();
    if (!this.timesBuilt.has(collection)) {
      if (!(await this.times.isBuilt(collection)))
        await withLock(
          path.join(this.stateDir, STORE_LOCK),
          async () => {
            if (!(await this.times.isBuilt(collection)))
              await this.times.build(collection, await this.fileWrites(collection));
          },
          () => this.replayLast(),
        );
      this.timesBuilt.add(collection);
    }
    const overlay = this.pending.overlay();
    const dir = this.dirFor(collection);
    return this.times.page(
      collection,
      page,
      (name) => path.join(dir, name),
      (files) =>
        Promise.all(
          files.map((file) => {
            const id = decodeURIComponent(path.basename(file, '.json'));
            return this.readOver(overlay, collection, id);
          }),
        ),
    );
  }

  /** A page of the records whose id starts with `prefix`, in id order (or descending): the folder listed by name, `limit` + 1 files read. */
  async listPage(collection: Collection, prefix: string, page: PageRequest): Promise<Page> {
    await this.recover();
    const overlay = this.pending.overlay();
    const ids = new Set(await this.idsWithPrefix(collection, prefix));
    // The pending commit's records of the collection may not have their files yet.
    for (const key of overlay.keys())
      if (key.startsWith(`${collection}/`)) ids.add(key.slice(collection.length + 1));
    const ordered = inIdOrder(
      [...ids].filter((id) => id.startsWith(prefix)).map((id) => ({ id })),
      page,
    );
    const read: { record: JsonRecord; key: string }[] = [];
    for (const { id } of ordered) {
      const record = await this.readOver(overlay, collection, id);
      if (record) read.push({ record, key: id });
      if (read.length > page.limit) break;
    }
    return sliced(read, page.limit);
  }

  async list(collection: Collection): Promise<JsonRecord[]> {
    await this.recover();
    const overlay = this.pending.overlay(); // before the files: see readOver
    return overlaid(await this.listFiles(collection), overlay, collection);
  }

  /**
   * The records of the collection's files that `names` gives, with the pending commit laid over
   * them (every record it holds of the collection: the caller filters). The pending file is read
   * first: see readOver.
   */
  private async readNamed(collection: Collection, names: () => Promise<string[]>): Promise<JsonRecord[]> {
    const ids = (await names())
      .filter(isRecordName)
      .map((n) => decodeURIComponent(n.slice(0, -'.json'.length)));
    return this.readIds(collection, ids);
  }

  /** Every record file of the collection as a write that leaves it so: what the status index is made from. */
  private async fileWrites(collection: Collection): Promise<FileWrite[]> {
    return (await this.listFiles(collection)).map((record) => ({
      collection,
      file: this.fileFor(collection, record.id),
      record,
    }));
  }

  /**
   * The record as the pending commit has it, else its file. The pending file is read first:
   * a write that applies it has put its records in their files before removing it.
   */
  private async readOver(
    overlay: Overlay,
    collection: Collection,
    id: string,
  ): Promise<JsonRecord | undefined> {
    const key = keyOf(collection, id);
    if (overlay.has(key)) {
      const record = overlay.get(key);
      return record ? copyOf(record) : undefined;
    }
    return this.readFile(collection, id);
  }

  /** Every record file of the collection (and of its parent keys' folders), read. */
  private async listFiles(collection: Collection): Promise<JsonRecord[]> {
    const dir = this.dirFor(collection);
    const names = await namesIn(dir);
    await removeLeftovers(dir, names);
    const files = names.filter(isRecordName).map((n) => path.join(dir, n));
    if (BUCKETED.has(collection))
      for (const sub of names.filter((n) => BUCKET_FOLDER.test(n))) {
        const subDir = path.join(dir, sub);
        const subNames = await namesIn(subDir);
        await removeLeftovers(subDir, subNames);
        files.push(...subNames.filter(isRecordName).map((n) => path.join(subDir, n)));
      }
    return readFiles(files);
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    return landed(await this.transact([{ kind: 'create', collection, record }])) as Versioned<T>;
  }

  async update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    return landed(
      await this.transact([{ kind: 'update', collection, record, expectedVersion }]),
    ) as Versioned<T>;
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    landed(await this.transact([{ kind: 'put', collection, record }]));
  }

  async delete(collection: Collection, id: string): Promise<void> {
    landed(await this.transact([{ kind: 'delete', collection, id }]));
  }

  /**
   * Many writes, one journal append and sync; each write's condition is its own. `interim`:
   * the records go to the pending file, one file for all, until the next write applies them.
   */
  async commit(writes: readonly Write[], options: CommitOptions = {}): Promise<WriteResult[]> {
    return this.transact(writes, options);
  }

  private async transact(ops: readonly Op[], options: CommitOptions = {}): Promise<WriteResult[]> {
    if (ops.length === 0) return [];
    for (const op of ops) this.fileFor(op.collection, op.kind === 'delete' ? op.id : op.record.id); // bad ids fail first
    await this.recover();
    return withLock(
      path.join(this.stateDir, STORE_LOCK),
      async () => {
        const before = readPending(this.stateDir); // an interim commit not yet in its files
        const { results, applied } = await this.check(ops, overlayOf(before));
        if (applied.length === 0) return results;
        const size = await this.appendJournal(applied);
        crashPoint('store:journalled');
        try {
          if (options.interim) {
            await this.apply(before);
            writePending(this.stateDir, applied, tempName(this.stateDir));
            crashPoint('store:pending-written');
            return results;
          }
          await this.apply([...before, ...applied], { crashAfterTemps: true });
        } catch (err) {
          // Journalled, not all in its files: the pending file keeps it for readers and the next write.
          this.keepPending([...before, ...applied]);
          throw err;
        }
        if (before.length > 0) removePending(this.stateDir);
        if (size > JOURNAL_LIMIT) await this.checkpoint();
        return results;
      },
      () => this.replayLast(),
    );
  }

  /** Leaves `applied` as the pending commit, when writing its files failed; quietly: the first error is the one to report. */
  private keepPending(applied: readonly Applied[]): void {
    try {
      writePending(this.stateDir, applied, tempName(this.stateDir));
    } catch {
      // the disk refuses writes; the journal still holds the commit (applied again after a reboot)
    }
  }

  /**
   * Checks each op against the records as they stand (the pending commit over the files) and
   * the ops before it in the same commit.
   */
  private async check(
    ops: readonly Op[],
    overlay: Overlay,
  ): Promise<{ results: WriteResult[]; applied: Applied[] }> {
    const pending = new Map<string, JsonRecord | null>(overlay);
    const results: WriteResult[] = [];
    const applied: Applied[] = [];
    const stored = await this.readAll(
      ops.filter(
        (op) =>
          (op.kind === 'create' || op.kind === 'update') && !overlay.has(keyOf(op.collection, idOf(op))),
      ),
    );
    for (const op of ops) {
      const id = op.kind === 'delete' ? op.id : op.record.id;
      const key = `${op.collection}/${id}`;
      const current = pending.has(key) ? (pending.get(key) ?? undefined) : stored.get(key);
      let next: JsonRecord | null;
      if (op.kind === 'create') {
        if (current !== undefined) {
          results.push({ ok: false, error: new RecordExistsError(`${op.collection}/${id} already exists.`) });
          continue;
        }
        next = { ...op.record, version: 1 };
      } else if (op.kind === 'update') {
        if (current?.version !== op.expectedVersion) {
          const found = current === undefined ? 'missing' : `at version ${String(current.version)}`;
          const error = new VersionConflictError(
            `${op.collection}/${id} is ${found}, not version ${op.expectedVersion}; re-read and retry.`,
            current,
          );
          results.push({ ok: false, error });
          continue;
        }
        next = { ...op.record, version: op.expectedVersion + 1 };
      } else next = op.kind === 'put' ? op.record : null;
      pending.set(key, next);
      applied.push({ collection: op.collection, id, record: next });
      results.push({ ok: true, record: next ?? { id } });
    }
    return { results, applied };
  }

  /** Appends one commit to the journal and syncs it; returns the journal's size. */
  private async appendJournal(applied: readonly Applied[]): Promise<number> {
    const file = path.join(this.stateDir, JOURNAL);
    await this.ensureDir(this.stateDir);
    // On this thread: five thread-pool round trips cost more than the append and its sync.
    const fd = openSync(file, 'a', 0o600);
    try {
      let { size } = fstatSync(fd);
      const lines =
        (size === 0 ? `${JSON.stringify({ journal: 1, boot: bootId() })}\n` : '') +
        `${JSON.stringify(applied)}\n`;
      writeSync(fd, lines);
      fdatasyncSync(fd);
      size += Buffer.byteLength(lines);
      return size;
    } finally {
      closeSync(fd);
    }
  }

  /** The stored records the conditional ops name, read side by side, by `<collection>/<id>`. */
  private async readAll(ops: readonly Op[]): Promise<Map<string, JsonRecord | undefined>> {
    const keys = [...new Map(ops.map((op) => [`${op.collection}/${idOf(op)}`, op])).entries()];
    const read = new Map<string, JsonRecord | undefined>();
    for (let i = 0; i < keys.length; i += LIST_BATCH)
      await Promise.all(
        keys
          .slice(i, i + LIST_BATCH)
          .map(async ([key, op]) => read.set(key, await this.readFile(op.collection, idOf(op)))),
      );
    return read;
  }

  /**
   * Replaces each record file with its last write in `applied` (temp + rename, unsynced: the
   * journal holds the commit): every temp file first, then the renames. On this thread: a
   * thread-pool round trip per call costs more than the call, and a page is hundreds of files.
   */
  private async apply(
    applied: readonly Applied[],
    options: { crashAfterTemps?: boolean } = {},
  ): Promise<void> {
    const last = new Map<string, FileWrite>();
    for (const a of applied) {
      const file = this.fileFor(a.collection, a.id);
      last.set(file, { collection: a.collection, file, record: a.record });
    }
    const writes = [...last.values()];
    const current = this.index.currentOf(writes); // before this write changes the folders
    const timedBefore = this.times.markedNow(writes);
    const flat: string[] = [];
    for (const collection of new Set(writes.map((w) => w.collection).filter((c) => BUCKETED.has(c)))) {
      this.markNewBucketed(collection);
      if (await this.flatMayHold(collection))
        for (const w of writes)
          if (w.collection === collection && path.dirname(w.file) !== this.dirFor(collection))
            flat.push(path.join(this.dirFor(collection), path.basename(w.file)));
    }
    for (const dir of new Set(writes.map(({ file }) => path.dirname(file)))) await this.ensureDir(dir);
    const temps = new Map<string, string>();
    try {
      for (const { file, record } of writes)
        if (record !== null) temps.set(file, this.writeTempFor(file, record));
      if (options.crashAfterTemps) crashPoint('store:temp-written');
      this.index.prepare();
      this.index.markEntering(writes);
      this.times.mark(writes);
      if (options.crashAfterTemps) crashPoint('store:marked');
      for (const { file } of writes) {
        const temp = temps.get(file);
        if (temp === undefined) unlinkQuietlySync(file);
        else renameSync(temp, file);
        temps.delete(file);
      }
      for (const file of flat) unlinkQuietlySync(file); // a keyed record a build before buckets left flat
      if (options.crashAfterTemps) crashPoint('store:renamed');
      this.index.unmarkLeft(writes, current);
      this.times.unmarkMoved(writes, timedBefore);
    } finally {
      for (const temp of temps.values()) unlinkQuietlySync(temp); // a failed write leaves no temp file
    }
  }

  /** A temp file holding `record`, next to `file` (its folder made again if it was removed). */
  private writeTempFor(file: string, record: JsonRecord): string {
    const dir = path.dirname(file);
    try {
      return writeTempSync(dir, record);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      this.made.delete(dir); // the folder was removed under us: make it again
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.made.add(dir);
      return writeTempSync(dir, record);
    }
  }

  /**
   * Whoever breaks a dead writer's lock first applies what that writer may have left
   * unapplied: the pending commit, then the journal's last line (often the same commit).
   */
  private async replayLast(): Promise<void> {
    const before = readPending(this.stateDir);
    const last = (await this.journalLines()).commits.at(-1) ?? [];
    await this.apply([...before, ...last]);
    removePending(this.stateDir);
  }

  /**
   * Once per process, before its first read or write: after a reboot every journalled
   * commit is applied again and checkpointed; a lock left by a dead writer is broken (and
   * its commit applied).
   */
  private recover(): Promise<void> {
    this.recovered ??= (async () => {
      const boot = await this.journalBoot(); // its first line only: the journal can be megabytes
      if (boot !== null && boot !== bootId()) {
        await withLock(
          path.join(this.stateDir, STORE_LOCK),
          async () => {
            for (const commit of (await this.journalLines()).commits) await this.apply(commit);
            removePending(this.stateDir); // the journal's last line or the one before, applied just above
            await this.checkpoint();
          },
          () => Promise.resolve(), // every line is applied again just above
        );
        return;
      }
      const lock = path.join(this.stateDir, STORE_LOCK);
      if (await isStale(lock)) await breakStaleLock(lock, () => this.replayLast());
      await removeDeadTemps(this.stateDir); // the lock's own temp files, left by a killed writer
    })();
    return this.recovered;
  }

  /** Syncs every record file the journal names and their folders, then empties the journal. */
  private async checkpoint(): Promise<void> {
    const { commits } = await this.journalLines();
    const files = new Set<string>();
    const dirs = new Set<string>();
    for (const commit of commits)
      for (const { collection, id } of commit) {
        files.add(this.fileFor(collection, id));
        dirs.add(this.dirFor(collection));
        dirs.add(path.dirname(this.fileFor(collection, id)));
        for (const dir of this.index.dirsOf(collection)) dirs.add(dir);
      }
    for (const commit of commits) for (const dir of this.times.dirsOf(commit)) dirs.add(dir);
    const all = [...files, ...dirs];
    const lock = path.join(this.stateDir, STORE_LOCK);
    for (let i = 0; i < all.length; i += LIST_BATCH) {
      await Promise.all(all.slice(i, i + LIST_BATCH).map(syncQuietly));
      const now = new Date();
      await fs.utimes(lock, now, now); // still held, however long the syncs take
    }
    const file = path.join(this.stateDir, JOURNAL);
    const handle = await fs.open(file, 'w', 0o600);
    try {
      await handle.write(`${JSON.stringify({ journal: 1, boot: bootId() })}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  /** The boot id in the journal's first line, read alone; null when there is no journal. */
  private async journalBoot(): Promise<string | null> {
    let handle;
    try {
      handle = await fs.open(path.join(this.stateDir, JOURNAL), 'r');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
    try {
      const head = Buffer.alloc(JOURNAL_HEAD_BYTES);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const firstLine = head.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
      return parseLine(firstLine, JournalHeadSchema)?.boot ?? null;
    } finally {
      await handle.close();
    }
  }

  /** The journal's boot id and its complete commit lines (a torn last line is dropped). */
  private async journalLines(): Promise<{ boot: string | null; commits: Applied[][] }> {
    let text: string;
    try {
      text = await fs.readFile(path.join(this.stateDir, JOURNAL), 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { boot: null, commits: [] };
      throw err;
    }
    const [head, ...rest] = text.split('\n');
    const boot = parseLine(head ?? '', JournalHeadSchema)?.boot ?? null;
    const commits: Applied[][] = [];
    for (const line of rest) {
      const commit = parseLine(line, JournalCommitSchema);
      if (commit) commits.push(commit as Applied[]);
    }
    return { boot, commits };
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.made.has(dir)) return;
    await ensureDir(dir);
    this.made.add(dir);
  }

  private dirFor(collection: Collection): string {
    return path.join(this.stateDir, encodeId(collection));
  }

  private fileFor(collection: Collection, id: string): string {
    const bucket = bucketOf(collection, id);
    const dir = this.dirFor(collection);
    return path.join(bucket ? path.join(dir, bucket) : dir, `${encodeId(id)}.json`);
  }

  /** Where a keyed record was kept before buckets: the collection's own folder. */
  private flatFileFor(collection: Collection, id: string): string {
    return path.join(this.dirFor(collection), `${encodeId(id)}.json`);
  }

  /** A bucketed collection's folder made now holds no flat keyed record: mark it so (json-buckets.ts). */
  private markNewBucketed(collection: Collection): void {
    const dir = this.dirFor(collection);
    if (this.made.has(dir) || existsSync(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(path.join(dir, BUCKETED_MARK), 'a', 0o600));
    this.noFlat.add(collection);
  }
}

const JournalHeadSchema = z.object({ journal: z.literal(1), boot: z.string() });
const JournalCommitSchema = AppliedSchema;

function parseLine<T>(line: string, schema: z.ZodType<T>): T | null {
  if (line.trim() === '') return null;
  try {
    return schema.safeParse(JSON.parse(line)).data ?? null;
  } catch {
    return null; // torn by a crash mid-append: that commit never became durable
  }
}

let boot: string | null = null;

/** This boot of the machine: Linux's boot id, else the boot time to ten seconds. */
function bootId(): string {
  if (boot !== null) return boot;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    boot = String(Math.round((Date.now() - os.uptime() * 1000) / 10_000));
  }
  return boot;
}

function idOf(op: Op): string {
  return op.kind === 'delete' ? op.id : op.record.id;
}

/** The collection's records from its files, with the pending commit's writes laid over them. */
function overlaid(records: JsonRecord[], overlay: Overlay, collection: Collection): JsonRecord[] {
  if (overlay.size === 0) return records;
  const prefix = `${collection}/`;
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const [key, record] of overlay) {
    if (!key.startsWith(prefix)) continue;
    const id = key.slice(prefix.length);
    if (record === null) byId.delete(id);
    else byId.set(id, copyOf(record));
  }
  return [...byId.values()];
}

/** The record a single write landed, or its error thrown. */
function landed(results: WriteResult[]): JsonRecord {
  const [result] = results;
  if (!result!.ok) throw result!.error;
  return result!.record;
}

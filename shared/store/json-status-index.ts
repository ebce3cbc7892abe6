/**
 * The JSON-file store's status index, its counterpart of DynamoDB's sparse status index: for
 * each record in an indexed status (INDEXED_STATUSES: pending decisions, running and waiting
 * runs, claims acting or held), an empty marker file named as the record's file, under
 * `by-status/<collection>/<status>/`. `listWithStatus` reads the records its markers name, so a
 * run's start, the pending page and housekeeping cost what is still moving, not the
 * workspace's history.
 *
 * The markers are never fewer than the truth: a record's marker is made before its file takes
 * the status and removed only after its file has left it, so a crash in between leaves at
 * most a marker too many (the reader checks each record's status; the journal's replay
 * removes it). A marker is a hard link of one empty file (a link costs a tenth of a new
 * file on ext4). After each write the collection folder's modification time is copied to
 * `by-status/<collection>/.stamp`'s; a folder changed by anything else (records copied in or
 * removed by hand, a build from before the index) no longer matches, and its markers are made
 * again from its records, once, under the store lock. (A record file rewritten in place by
 * hand does not change its folder's time; the store never writes one so.)
 */
import { closeSync, linkSync, mkdirSync, openSync, promises as fs, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { INDEXED_STATUSES, isIndexed, type Collection, type JsonRecord } from './store.ts';
import { errorCode, syncQuietly, unlinkQuietlySync } from './json-files.ts';

const INDEX_DIR = 'by-status';
/** A file whose modification time is the collection folder's when the store last wrote it. */
const STAMP = '.stamp';
/** The one empty file every marker is a hard link of: a link costs a tenth of a new file. */
const SHARED_MARKER = '.marker';
/** utimes keeps a time to about a microsecond; a folder's time moves by a clock tick (milliseconds). */
const SAME_TIME_NS = 2_000n;

/** A record file as a commit leaves it: its collection, its path and its record (null: deleted). */
export interface FileWrite {
  collection: Collection;
  file: string;
  record: JsonRecord | null;
}

export class StatusIndex {
  private prepared = false;

  /** `folderOf`: where the collection's record files are. */
  constructor(
    private readonly stateDir: string,
    private readonly folderOf: (collection: Collection) => string,
  ) {}

  /**
   * Makes the index's folders and files, once per process, before it first marks: a state
   * directory pays for them at its first write (saving its first workflow), not at each run's.
   * A new stamp has time zero, so it matches no folder until a write sets it.
   */
  prepare(): void {
    if (this.prepared) return;
    for (const collection of Object.keys(INDEXED_STATUSES) as Collection[]) {
      for (const dir of this.dirsOf(collection)) mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stamp = this.stampFile(collection);
      try {
        closeSync(openSync(stamp, 'wx', 0o600));
        utimesSync(stamp, 0, 0);
      } catch (err) {
        if (errorCode(err) !== 'EEXIST') throw err;
      }
    }
    closeSync(openSync(path.join(this.stateDir, INDEX_DIR, SHARED_MARKER), 'a', 0o600));
    this.prepared = true;
  }

  /** Before the record files are replaced: a marker for each record entering an indexed status. */
  markEntering(writes: readonly FileWrite[]): void {
    for (const { collection, file, record } of writes) {
      const status = record?.status;
      if (isIndexed(collection, status)) this.makeMarker(this.markerFor(collection, status, file));
    }
  }

  /**
   * Before a write touches any file: the indexed collections it writes whose markers are
   * current. Only those are stamped after it; another stays stale (its folder was changed
   * behind the store's back) until a read indexes it again.
   */
  currentOf(writes: readonly FileWrite[]): Set<Collection> {
    const collections = new Set(writes.map((w) => w.collection).filter((c) => INDEXED_STATUSES[c]));
    return new Set([...collections].filter((c) => this.isCurrent(c)));
  }

  /** After the record files were replaced: the markers of the statuses each record has left; the stamps of `current`. */
  unmarkLeft(writes: readonly FileWrite[], current: ReadonlySet<Collection>): void {
    for (const { collection, file, record } of writes)
      for (const status of INDEXED_STATUSES[collection] ?? [])
        if (record?.status !== status) unlinkQuietlySync(this.markerFor(collection, status, file));
    for (const collection of current) this.stamp(collection);
  }

  /** The record file names the markers of `status` name (a superset: check each record's status). */
  async markedNames(collection: Collection, status: string): Promise<string[]> {
    try {
      return await fs.readdir(this.statusDir(collection, status));
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return [];
      throw err;
    }
  }

  /** Whether the markers cover the collection's records: its folder is as the store last left it (or absent). */
  isCurrent(collection: Collection): boolean {
    const folder = modifiedNs(this.folderOf(collection));
    if (folder === null) return true; // no records: nothing to mark
    const stamp = modifiedNs(this.stampFile(collection));
    if (stamp === null) return false;
    const gap = folder - stamp;
    return gap < SAME_TIME_NS && gap > -SAME_TIME_NS;
  }

  /**
   * Makes the collection's markers again from `records` (all of its record files), removes
   * those naming no record in their status, syncs them, then stamps the folder. The caller
   * holds the store lock, so no write comes between the listing and the stamp.
   */
  async rebuild(collection: Collection, records: readonly FileWrite[]): Promise<void> {
    this.prepare();
    this.markEntering(records);
    const statusOf = new Map(records.map((r) => [path.basename(r.file), r.record?.status]));
    for (const status of INDEXED_STATUSES[collection] ?? [])
      for (const name of await this.markedNames(collection, status))
        if (statusOf.get(name) !== status)
          unlinkQuietlySync(path.join(this.statusDir(collection, status), name));
    for (const dir of this.dirsOf(collection)) await syncQuietly(dir);
    this.stamp(collection);
    await syncQuietly(this.stampFile(collection));
  }

  /** The folders holding the collection's markers: synced with its record files at a checkpoint. */
  dirsOf(collection: Collection): string[] {
    return (INDEXED_STATUSES[collection] ?? []).map((status) => this.statusDir(collection, status));
  }

  /** A marker, as a link of the shared empty file (`prepare` made the folders). */
  private makeMarker(marker: string): void {
    const shared = path.join(this.stateDir, INDEX_DIR, SHARED_MARKER);
    try {
      linkSync(shared, marker);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'EEXIST') return;
      if (code === 'EMLINK') return closeSync(openSync(marker, 'a', 0o600)); // the link count's cap: a file of its own
      if (code !== 'ENOENT') throw err;
      // The shared file or the folder is missing (first use, or removed under us): make both again.
      mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
      closeSync(openSync(shared, 'a', 0o600));
      linkSync(shared, marker);
    }
  }

  /** Notes the collection folder's modification time (as the stamp's): the markers are current with it. */
  private stamp(collection: Collection): void {
    const folder = modifiedNs(this.folderOf(collection));
    if (folder === null) return;
    const file = this.stampFile(collection);
    const seconds = Number(folder) / 1e9;
    try {
      utimesSync(file, seconds, seconds);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      closeSync(openSync(file, 'a', 0o600));
      utimesSync(file, seconds, seconds);
    }
  }

  private stampFile(collection: Collection): string {
    return path.join(this.stateDir, INDEX_DIR, collection, STAMP);
  }

  private markerFor(collection: Collection, status: string, file: string): string {
    return path.join(this.statusDir(collection, status), path.basename(file));
  }

  private statusDir(collection: Collection, status: string): string {
    return path.join(this.stateDir, INDEX_DIR, collection, status);
  }
}

/** A file's or folder's modification time in nanoseconds; null when there is none. */
function modifiedNs(file: string): bigint | null {
  try {
    return statSync(file, { bigint: true }).mtimeNs;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

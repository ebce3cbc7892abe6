/**
 * The JSON-file store's time index, its counterpart of DynamoDB's by-time index: for each
 * record of a TIME_INDEXED collection that has its time (settled decisions, runs), an empty
 * marker named `<time>~<record file name>` in `by-time/<collection>/<day>/`. A page newest
 * first lists the day folders, then only the days it needs, and reads the records its
 * markers name: the latest ten answers cost ten reads plus one, not the workspace's history.
 *
 * A marker is made before its record file is replaced and, but where a record's time moves
 * (TIME_MOVES: a chat's last use), never removed; there the marker of the time it had is
 * removed after the file is replaced. A marker whose record no longer has that time (deleted,
 * never landed, or a crash before the old one was removed) is skipped by the reader, so the
 * markers are never fewer than the truth. A collection written before the index is marked
 * from its records once, at its first page (`.built-<collection>` says it was).
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorCode, namesIn, syncQuietly, unlinkQuietlySync } from './json-files.ts';
import {
  TIME_INDEXED,
  TIME_MOVES,
  sliced,
  timeKeyOf,
  type Collection,
  type JsonRecord,
  type Page,
  type PageRequest,
} from './store.ts';
import type { FileWrite } from './json-status-index.ts';

const INDEX_DIR = 'by-time';
const SHARED_MARKER = '.marker';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const SEPARATOR = '~'; // never in an ISO time

export class TimeIndex {
  constructor(private readonly stateDir: string) {}

  /** Before the record files are replaced: a marker for each written record that has its time. */
  mark(writes: readonly FileWrite[]): void {
    for (const { collection, file, record } of writes) {
      if (record === null || !TIME_INDEXED[collection]) continue;
      const time = timeKeyOf(collection, record);
      if (time !== undefined) this.makeMarker(this.markerFor(collection, time, file));
    }
  }

  /**
   * Before the record files are replaced: the markers of the records whose time may move
   * (TIME_MOVES) at the time they have now, read from their files; `unmarkMoved` takes them.
   */
  markedNow(writes: readonly FileWrite[]): string[] {
    const markers: string[] = [];
    for (const { collection, file } of writes) {
      if (!TIME_MOVES.has(collection)) continue;
      const stored = readRecordQuietly(file);
      const time = stored ? timeKeyOf(collection, stored) : undefined;
      if (time !== undefined) markers.push(this.markerFor(collection, time, file));
    }
    return markers;
  }

  /** After the record files were replaced: each marker of `markedNow` that no written record has any more. */
  unmarkMoved(writes: readonly FileWrite[], before: readonly string[]): void {
    if (before.length === 0) return;
    const kept = new Set<string>();
    for (const { collection, file, record } of writes) {
      const time = record && TIME_MOVES.has(collection) ? timeKeyOf(collection, record) : undefined;
      if (time !== undefined) kept.add(this.markerFor(collection, time, file));
    }
    for (const marker of before) if (!kept.has(marker)) unlinkQuietlySync(marker);
  }

  /** The day folders the markers of `writes` are in: synced with their record files at a checkpoint. */
  dirsOf(writes: readonly { collection: Collection; record: JsonRecord | null }[]): string[] {
    const dirs = new Set<string>();
    for (const { collection, record } of writes) {
      const time = record && TIME_INDEXED[collection] ? timeKeyOf(collection, record) : undefined;
      if (time !== undefined) dirs.add(this.dayDir(collection, time.slice(0, 10)));
    }
    return [...dirs];
  }

  /** Whether the collection's records were marked (or it had none when the index came). */
  async isBuilt(collection: Collection): Promise<boolean> {
    return (await namesIn(path.join(this.stateDir, INDEX_DIR))).includes(`.built-${collection}`);
  }

  /** Marks every record of a collection written before the index, once. */
  async build(collection: Collection, records: readonly FileWrite[]): Promise<void> {
    this.mark(records);
    for (const dir of this.dirsOf(records)) await syncQuietly(dir);
    mkdirSync(path.join(this.stateDir, INDEX_DIR), { recursive: true, mode: 0o700 });
    closeSync(openSync(path.join(this.stateDir, INDEX_DIR, `.built-${collection}`), 'a', 0o600));
  }

  /**
   * A page newest first: the day folders from the cursor's day back, each listed only when
   * the page still needs records, `read` given the record files to read (`limit` + 1 at most,
   * plus any stale marker). The cursor is the last shown marker's name.
   */
  async page(
    collection: Collection,
    page: PageRequest,
    fileOf: (name: string) => string,
    read: (files: string[]) => Promise<(JsonRecord | undefined)[]>,
  ): Promise<Page> {
    const cursor = page.cursor ?? null;
    const root = path.join(this.stateDir, INDEX_DIR, collection);
    const days = (await namesIn(root))
      .filter((d) => DAY.test(d) && (cursor === null || d <= cursor.slice(0, 10)))
      .sort()
      .reverse();
    const found: { record: JsonRecord; key: string }[] = [];
    for (const day of days) {
      const names = (await namesIn(path.join(root, day)))
        .filter((n) => n.includes(SEPARATOR) && (cursor === null || n < cursor))
        .sort()
        .reverse();
      for (let i = 0; i < names.length && found.length <= page.limit;) {
        const batch = names.slice(i, i + page.limit + 1 - found.length);
        i += batch.length;
        const records = await read(batch.map((n) => fileOf(n.slice(n.indexOf(SEPARATOR) + 1))));
        records.forEach((record, j) => {
          const name = batch[j]!;
          if (record && timeKeyOf(collection, record) === name.slice(0, name.indexOf(SEPARATOR)))
            found.push({ record, key: name });
        });
      }
      if (found.length > page.limit) break;
    }
    return sliced(found, page.limit);
  }

  private markerFor(collection: Collection, time: string, file: string): string {
    return path.join(this.dayDir(collection, time.slice(0, 10)), `${time}${SEPARATOR}${path.basename(file)}`);
  }

  private dayDir(collection: Collection, day: string): string {
    return path.join(this.stateDir, INDEX_DIR, collection, DAY.test(day) ? day : '0000-00-00');
  }

  /** A marker, as a link of the shared empty file (its folder and the file made on first use). */
  private makeMarker(marker: string): void {
    const shared = path.join(this.stateDir, INDEX_DIR, SHARED_MARKER);
    try {
      linkSync(shared, marker);
    } catch (err) {
      const code = errorCode(err);
      if (code === 'EEXIST') return;
      if (code === 'EMLINK') return closeSync(openSync(marker, 'a', 0o600));
      if (code !== 'ENOENT') throw err;
      mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
      closeSync(openSync(shared, 'a', 0o600));
      try {
        linkSync(shared, marker);
      } catch (again) {
        if (errorCode(again) !== 'EEXIST') throw again;
      }
    }
  }
}

/** The record a file holds now, or undefined (none, or not a record). */
function readRecordQuietly(file: string): JsonRecord | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as JsonRecord) : undefined;
  } catch {
    return undefined;
  }
}

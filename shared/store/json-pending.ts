/**
 * The JSON-file store's pending commit. An interim commit (a page's claims, which the same
 * page's record settles a moment later) is journalled and synced like any other, but its
 * records go to one file, `.pending`, instead of one file each; the next write, by any
 * process, applies them with its own, so a record claimed and then settled is written once.
 * Readers lay `.pending` over the record files, so a commit is seen by every process once it
 * has returned. `.pending` is only ever the journal's last line or the one before it (the
 * write applying it has appended its own and not yet removed it), so recovery applies
 * `.pending`, then the journal's last line.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { HandoffError } from '../errors/index.ts';
import { errorCode, unlinkQuietlySync } from './json-files.ts';
import type { Collection, JsonRecord } from './store.ts';

/** The pending commit's file, in the state directory. */
export const PENDING = '.pending';

/** One write as the journal and the record files see it; `record: null` removes the record. */
export interface Applied {
  collection: Collection;
  id: string;
  record: JsonRecord | null;
}

/** A commit's writes by `<collection>/<id>`, the last write of each. */
export type Overlay = ReadonlyMap<string, JsonRecord | null>;

export const AppliedSchema = z.array(
  z.object({ collection: z.string(), id: z.string(), record: z.record(z.string(), z.unknown()).nullable() }),
);

/** The key a record has in an overlay. */
export function keyOf(collection: Collection, id: string): string {
  return `${collection}/${id}`;
}

/** The last write of each record in `applied`, by key. */
export function overlayOf(applied: readonly Applied[]): Overlay {
  return new Map(applied.map((a) => [keyOf(a.collection, a.id), a.record]));
}

/** The pending commit's writes, read now; empty when there is none. */
export function readPending(stateDir: string): Applied[] {
  let text: string;
  const file = path.join(stateDir, PENDING);
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
  return parsePending(file, text);
}

/**
 * Replaces the pending commit with `applied` (temp file + rename: a reader sees the old one
 * or the new one whole). Unsynced: the journal holds the commit.
 */
export function writePending(stateDir: string, applied: readonly Applied[], temp: string): void {
  writeFileSync(temp, JSON.stringify(applied), { flag: 'wx', mode: 0o600 });
  try {
    renameSync(temp, path.join(stateDir, PENDING));
  } catch (err) {
    unlinkQuietlySync(temp);
    throw err;
  }
}

/** Removes the pending commit, once its records are in their files. */
export function removePending(stateDir: string): void {
  unlinkQuietlySync(path.join(stateDir, PENDING));
}

/**
 * What readers lay over the record files: the pending commit, parsed again only when the
 * file changed (it is replaced by rename: a new inode, time and size each time).
 */
export class PendingReader {
  private seen: { stamp: string; overlay: Overlay } | null = null;

  constructor(private readonly stateDir: string) {}

  /** The pending writes by key; empty (one failed stat) when there is no pending commit. */
  overlay(): Overlay {
    const file = path.join(this.stateDir, PENDING);
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) {
      this.seen = null;
      return EMPTY;
    }
    const stamp = `${stat.ino}:${stat.mtimeNs}:${stat.size}`;
    if (this.seen?.stamp === stamp) return this.seen.overlay;
    const overlay = overlayOf(readPending(this.stateDir));
    this.seen = { stamp, overlay };
    return overlay;
  }
}

const EMPTY: Overlay = new Map();

/** A copy of an overlaid record (the overlay is shared between reads). */
export function copyOf(record: JsonRecord): JsonRecord {
  return structuredClone(record);
}

function parsePending(file: string, text: string): Applied[] {
  try {
    return AppliedSchema.parse(JSON.parse(text)) as Applied[];
  } catch (err) {
    throw new HandoffError(`${file} is corrupt; restore the state directory from a backup.`, {
      cause: err,
    });
  }
}

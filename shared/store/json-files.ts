/**
 * The files around the JSON store's records: the store-wide lock file (naming its owner, so
 * a dead owner's lock is broken at once), temp files named for their process, the leftovers a
 * killed process leaves, and reading and syncing a record file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { isAlive } from '../config/processes.ts';
import { HandoffError } from '../errors/index.ts';
import type { JsonRecord } from './store.ts';

const LOCK_WAIT_MS = 5_000;
/** A lock or temp file this old is stale even when its owner cannot be told (an empty lock). */
const LOCK_STALE_MS = 10_000;
/** This host, short: temp names carry it with the pid, so only this host judges them. */
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
/** What a lock file holds: who took it, so a waiter can tell at once that its owner died. */
const LOCK_OWNER = `${JSON.stringify({ host: HOST, pid: process.pid })}\n`;
const TEMP_NAME = /^\.tmp-([0-9a-f]{8})-(\d+)-/;

/** Files read (or synced) at once, at most: bounds the open files on big collections. */
export const LIST_BATCH = 64;

/** A record's file name (temp, lock and breaker files are not). */
export function isRecordName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

/** The names in `dir`; none when it does not exist. */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
}

/** The records of `files` (a vanished file skipped), in batches that bound the open files. */
export async function readFiles(files: readonly string[]): Promise<JsonRecord[]> {
  const records: JsonRecord[] = [];
  for (let i = 0; i < files.length; i += LIST_BATCH) {
    const batch = await Promise.all(files.slice(i, i + LIST_BATCH).map((f) => readRecord(f)));
    for (const r of batch) if (r !== undefined) records.push(r);
  }
  return records;
}

export async function syncQuietly(file: string): Promise<void> {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return;
    throw err;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Reads one record file. Synchronously: a record is small and in the page cache, and a
 * thread-pool round trip per file costs ten times the read (a page of claims reads hundreds).
 */
export async function readRecord(file: string): Promise<JsonRecord | undefined> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as JsonRecord;
  } catch (err) {
    throw new HandoffError(`${file} is not valid JSON; restore it from a backup or delete it.`, {
      cause: err,
    });
  }
}

/** Makes `dir` (and its parents). On this thread: a new folder costs milliseconds through the thread pool when it is busy, microseconds here. */
export async function ensureDir(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** This process's temp names: one random stem, then a counter (no random bytes drawn per file). */
const TEMP_STEM = randomBytes(6).toString('hex');
let tempCount = 0;

export function tempName(dir: string): string {
  tempCount += 1;
  return path.join(dir, `.tmp-${HOST}-${process.pid}-${TEMP_STEM}${tempCount.toString(36)}`);
}

/** This process's writers waiting for each lock file, in order: the last one's turn. */
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` holding the lock file `lock`. Writers of this process take turns in the order
 * they came (never polling for each other, so none starves behind its own process's
 * writes); the turn's holder takes the file, which other processes contend for.
 */
export async function withLock<R>(
  lock: string,
  fn: () => Promise<R>,
  onStale: () => Promise<void>,
): Promise<R> {
  const before = queues.get(lock) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const turn = before.then(() => mine);
  queues.set(lock, turn);
  await before;
  try {
    return await withFileLock(lock, fn, onStale);
  } finally {
    done();
    if (queues.get(lock) === turn) queues.delete(lock);
  }
}

/**
 * Runs `fn` holding the lock file `lock`, created exclusively; waits up to LOCK_WAIT_MS for
 * it. A lock whose owner died is broken, `onStale` running first (under the breaker, before
 * anyone can take the lock) to finish what the dead owner left.
 */
async function withFileLock<R>(lock: string, fn: () => Promise<R>, onStale: () => Promise<void>): Promise<R> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 2;
  for (;;) {
    if (await createOwned(lock)) break;
    if (await isStale(lock)) await breakStaleLock(lock, onStale);
    if (Date.now() >= deadline) {
      throw new HandoffError(
        `Timed out after ${LOCK_WAIT_MS / 1000} s waiting for ${lock}; if no handoff process is using it, delete it.`,
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
  try {
    return await fn();
  } finally {
    unlinkQuietlySync(lock);
  }
}

/**
 * Removes a stale lock. A side file taken with 'wx' makes breaking exclusive, and the
 * lock is re-checked under it, so two waiters cannot both break it and then both own it;
 * `onStale` (when given) runs under the breaker before the lock goes.
 */
export async function breakStaleLock(lock: string, onStale?: () => Promise<void>): Promise<void> {
  const breaker = `${lock}.break`;
  if (!(await createOwned(breaker))) {
    // A breaker left by a process that died mid-break would block breaking forever.
    if (await isStale(breaker)) await unlinkQuietly(breaker);
    return;
  }
  try {
    if (await isStale(lock)) {
      await onStale?.();
      await unlinkQuietly(lock);
    }
  } finally {
    await unlinkQuietly(breaker);
  }
}

/**
 * Creates `file` holding LOCK_OWNER, exclusively (a hard link fails if it is taken), so
 * the file is never seen without its owner. False when it exists. On this thread: four
 * thread-pool round trips per commit cost more than the calls.
 */
async function createOwned(file: string): Promise<boolean> {
  const dir = path.dirname(file);
  const temp = tempName(dir);
  try {
    writeFileSync(temp, LOCK_OWNER, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
    await ensureDir(dir); // its folder is made on first use (or again, when removed), not per commit
    writeFileSync(temp, LOCK_OWNER, { flag: 'wx', mode: 0o600 });
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkQuietlySync(temp);
  }
}

/** A lock is stale at once when its owner (a process of this host) is gone, else after LOCK_STALE_MS. */
export async function isStale(file: string): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
  if (Date.now() - mtimeMs > LOCK_STALE_MS) return true;
  const owner = ownerOf(text);
  return owner !== null && owner.host === HOST && owner.pid !== process.pid && !isAlive(owner.pid);
}

const LockOwnerSchema = z.object({ host: z.string(), pid: z.number().int() });

function ownerOf(text: string): z.infer<typeof LockOwnerSchema> | null {
  try {
    return LockOwnerSchema.safeParse(JSON.parse(text)).data ?? null;
  } catch {
    return null; // empty, or written by an older version: only its age can tell
  }
}

/**
 * Removes what a killed process left in a collection's folder: temp files of a dead
 * process of this host, and locks (or breakers) that are stale.
 */
export async function removeLeftovers(dir: string, names: string[]): Promise<void> {
  for (const name of names) {
    const file = path.join(dir, name);
    const temp = TEMP_NAME.exec(name);
    if (temp) {
      const pid = Number(temp[2]);
      if (temp[1] === HOST && pid !== process.pid && !isAlive(pid)) await unlinkQuietly(file);
    } else if (name.endsWith('.lock')) {
      if (await isStale(file)) await breakStaleLock(file);
    } else if (name.endsWith('.lock.break')) {
      if (await isStale(file)) await unlinkQuietly(file);
    }
  }
}

/** Removes temp files of dead processes of this host directly in `dir`. */
export async function removeDeadTemps(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return;
    throw err;
  }
  await removeLeftovers(
    dir,
    names.filter((name) => TEMP_NAME.test(name)),
  );
}

/** Writes a uniquely named temp file in `dir`, unsynced, on this thread; returns its path. */
export function writeTempSync(dir: string, value: unknown): string {
  const temp = tempName(dir);
  try {
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') unlinkQuietlySync(temp);
    throw err;
  }
  return temp;
}

async function unlinkQuietly(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

/** Removes `file`; no error when it is already gone. */
export function unlinkQuietlySync(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { crashPoint, isAlive } from '../config/processes.ts';
import { HandoffError, InvalidInputError, RecordExistsError, VersionConflictError } from '../errors/index.ts';
import type { Collection, JsonRecord, Store, Versioned } from './store.ts';

const LOCK_WAIT_MS = 5_000;
/** A lock or temp file this old is stale even when its owner cannot be told (an empty lock). */
const LOCK_STALE_MS = 10_000;
/** This host, short: temp names carry it with the pid, so only this host judges them. */
const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
/** What a lock file holds: who took it, so a waiter can tell at once that its owner died. */
const LOCK_OWNER = `${JSON.stringify({ host: HOST, pid: process.pid })}\n`;
const TEMP_NAME = /^\.tmp-([0-9a-f]{8})-(\d+)-/;
const LIST_BATCH = 64;
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

/**
 * A Store kept as one JSON file per record under `<stateDir>/<collection>/`.
 * Safe across processes: creates use link() (fails if taken), updates hold a
 * per-record lock file, and every write is temp file + fsync + rename.
 */
export class JsonFileStore implements Store {
  constructor(private readonly stateDir: string) {}

  async get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    return readRecord(this.fileFor(collection, id));
  }

  async listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]> {
    return (await this.list(collection)).filter((r) => r.status === status);
  }

  async list(collection: Collection): Promise<JsonRecord[]> {
    const dir = this.dirFor(collection);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return [];
      throw err;
    }
    await removeLeftovers(dir, names);
    const files = names
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .map((n) => path.join(dir, n));
    const records: JsonRecord[] = [];
    // Batches bound the number of open files on big collections.
    for (let i = 0; i < files.length; i += LIST_BATCH) {
      const batch = await Promise.all(files.slice(i, i + LIST_BATCH).map((f) => readRecord(f)));
      for (const r of batch) if (r !== undefined) records.push(r);
    }
    return records;
  }

  async create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    const file = this.fileFor(collection, record.id);
    const next: Versioned<T> = { ...record, version: 1 };
    await ensureDir(path.dirname(file));
    const temp = await writeTemp(path.dirname(file), next);
    try {
      await fs.link(temp, file);
    } catch (err) {
      if (errorCode(err) === 'EEXIST')
        throw new RecordExistsError(`${collection}/${record.id} already exists.`);
      throw err;
    } finally {
      await unlinkQuietly(temp);
    }
    return next;
  }

  async update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    const file = this.fileFor(collection, record.id);
    return withLock(file, async () => {
      const current = await readRecord(file);
      if (current?.version !== expectedVersion) {
        const found = current === undefined ? 'missing' : `at version ${String(current.version)}`;
        throw new VersionConflictError(
          `${collection}/${record.id} is ${found}, not version ${expectedVersion}; re-read and retry.`,
          current,
        );
      }
      const next: Versioned<T> = { ...record, version: expectedVersion + 1 };
      await writeAtomic(file, next);
      return next;
    });
  }

  async put(collection: Collection, record: JsonRecord): Promise<void> {
    const file = this.fileFor(collection, record.id);
    // Locked so a put cannot be silently undone by an update that read before it.
    await withLock(file, () => writeAtomic(file, record));
  }

  async delete(collection: Collection, id: string): Promise<void> {
    const file = this.fileFor(collection, id);
    await withLock(file, () => unlinkQuietly(file));
  }

  private dirFor(collection: Collection): string {
    return path.join(this.stateDir, encodeId(collection));
  }

  private fileFor(collection: Collection, id: string): string {
    return path.join(this.dirFor(collection), `${encodeId(id)}.json`);
  }
}

async function readRecord(file: string): Promise<JsonRecord | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
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

async function ensureDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
}

function tempName(dir: string): string {
  return path.join(dir, `.tmp-${HOST}-${process.pid}-${randomBytes(8).toString('hex')}`);
}

/** Writes and fsyncs a uniquely named temp file in `dir`; returns its path. */
async function writeTemp(dir: string, value: unknown): Promise<string> {
  const temp = tempName(dir);
  try {
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    await unlinkQuietly(temp);
    throw err;
  }
  return temp;
}

async function writeAtomic(file: string, value: unknown): Promise<void> {
  const temp = await writeTemp(path.dirname(file), value);
  crashPoint('store:temp-written');
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await unlinkQuietly(temp);
    throw err;
  }
}

/** Runs `fn` holding `<file>.lock`, created exclusively; waits up to LOCK_WAIT_MS for it. */
async function withLock<R>(file: string, fn: () => Promise<R>): Promise<R> {
  const lock = `${file}.lock`;
  await ensureDir(path.dirname(file));
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 2;
  for (;;) {
    if (await createOwned(lock)) break;
    if (await isStale(lock)) await breakStaleLock(lock);
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
    await unlinkQuietly(lock);
  }
}

/**
 * Removes a stale lock. A side file taken with 'wx' makes breaking exclusive, and the
 * lock is re-checked under it, so two waiters cannot both break it and then both own it.
 */
async function breakStaleLock(lock: string): Promise<void> {
  const breaker = `${lock}.break`;
  if (!(await createOwned(breaker))) {
    // A breaker left by a process that died mid-break would block breaking forever.
    if (await isStale(breaker)) await unlinkQuietly(breaker);
    return;
  }
  try {
    if (await isStale(lock)) await unlinkQuietly(lock);
  } finally {
    await unlinkQuietly(breaker);
  }
}

/**
 * Creates `file` holding LOCK_OWNER, exclusively (a hard link fails if it is taken), so
 * the file is never seen without its owner. False when it exists.
 */
async function createOwned(file: string): Promise<boolean> {
  const temp = tempName(path.dirname(file));
  await fs.writeFile(temp, LOCK_OWNER, { flag: 'wx', mode: 0o600 });
  try {
    await fs.link(temp, file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await unlinkQuietly(temp);
  }
}

/** A lock is stale at once when its owner (a process of this host) is gone, else after LOCK_STALE_MS. */
async function isStale(file: string): Promise<boolean> {
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
async function removeLeftovers(dir: string, names: string[]): Promise<void> {
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

async function unlinkQuietly(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

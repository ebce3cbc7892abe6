import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { HandoffError, RecordExistsError, VersionConflictError } from '../../shared/errors/index.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { raceTwoWriters } from '../support/race-writers.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/race-update.ts', import.meta.url));
const DIE_HOLDING_LOCK = fileURLToPath(new URL('./fixtures/die-holding-lock.ts', import.meta.url));

let dir: string;
let store: JsonFileStore;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-json-store-'));
  store = new JsonFileStore(dir);
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const fileOf = (collection: string, name: string): string => path.join(dir, collection, name);

describe('JsonFileStore layout', () => {
  it('stores one file per record under an encoded, dot-safe name, in a private directory', async () => {
    await store.create('interrupts', { id: '<abc@x.com>' });
    await store.create('interrupts', { id: '..' });
    const names = (await fs.readdir(path.join(dir, 'interrupts'))).sort();
    expect(names).toEqual(['%2E..json', '%3Cabc%40x.com%3E.json']);
    const mode = (await fs.stat(path.join(dir, 'interrupts'))).mode & 0o777;
    expect(mode & 0o077).toBe(0);
  });

  it('leaves no temp or lock files behind, even after failed writes', async () => {
    await store.create('runs', { id: 'a' });
    await store.update('runs', { id: 'a', n: 2 }, 1);
    await store.put('runs', { id: 'b' });
    await expect(store.create('runs', { id: 'a' })).rejects.toBeInstanceOf(RecordExistsError);
    await expect(store.update('runs', { id: 'a' }, 1)).rejects.toBeInstanceOf(VersionConflictError);
    await store.create('runs', { id: 'c' });
    await store.delete('runs', 'c');
    expect((await fs.readdir(path.join(dir, 'runs'))).sort()).toEqual(['a.json', 'b.json']);
  });

  it('reports a corrupt file by path', async () => {
    await fs.mkdir(path.join(dir, 'runs'), { recursive: true });
    await fs.writeFile(fileOf('runs', 'bad.json'), '{"id": "bad", ');
    await expect(store.get('runs', 'bad')).rejects.toThrow(/bad\.json is not valid JSON/);
  });

  it('tolerates records vanishing while listing', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `r${i}`);
    await Promise.all(ids.map((id) => store.create('runs', { id })));
    const [listed] = await Promise.all([store.list('runs'), ...ids.map((id) => store.delete('runs', id))]);
    expect(listed.length).toBeLessThanOrEqual(100);
    expect(await store.list('runs')).toEqual([]);
  });
});

describe('JsonFileStore locking', () => {
  const lockFile = () => path.join(dir, '.store.lock');

  it("lets one process's writers take the store lock in the order they asked, none polling behind its own", async () => {
    await store.create('runs', { id: 'seq', n: 0 });
    // Each update expects the version the one before it leaves: only the order asked lands them all.
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => store.update('runs', { id: 'seq', n: i + 1 }, i + 1)),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 40 }, () => 'fulfilled'));
    expect(await store.get('runs', 'seq')).toMatchObject({ n: 40, version: 41 });
  });

  it('keeps no lock file per record: every write holds the one store lock, and leaves it', async () => {
    await store.create('runs', { id: 'a' });
    await store.update('runs', { id: 'a', n: 2 }, 1);
    expect(await fs.readdir(path.join(dir, 'runs'))).toEqual(['a.json']);
    expect((await fs.readdir(dir)).sort()).toEqual(['.journal', 'by-status', 'runs']);
  });

  it('breaks a stale lock', async () => {
    await store.create('runs', { id: 'a' });
    const old = new Date(Date.now() - 60_000);
    for (const file of [lockFile(), `${lockFile()}.break`]) {
      await fs.writeFile(file, '');
      await fs.utimes(file, old, old);
    }
    const started = Date.now();
    await store.update('runs', { id: 'a', n: 2 }, 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await fs.readdir(dir)).sort()).toEqual(['.journal', 'by-status', 'runs']);
  });

  it('waits for a fresh lock to be released', async () => {
    await store.create('runs', { id: 'a' });
    await fs.writeFile(lockFile(), '');
    let done = false;
    const pending = store.update('runs', { id: 'a', n: 2 }, 1).finally(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false);
    await fs.unlink(lockFile());
    await expect(pending).resolves.toEqual({ id: 'a', n: 2, version: 2 });
  });

  it('gives up on a held lock after about 5 s', async () => {
    await store.create('runs', { id: 'a' });
    await fs.writeFile(lockFile(), '');
    await expect(store.update('runs', { id: 'a' }, 1)).rejects.toThrow(HandoffError);
    expect(await store.get('runs', 'a')).toEqual({ id: 'a', version: 1 });
  }, 15_000);
});

describe('JsonFileStore commit', () => {
  it('lands many writes with one journal append, each condition on its own', async () => {
    await store.create('outcomes', { id: 'taken' });
    const journal = path.join(dir, '.journal');
    const before = (await fs.readFile(journal, 'utf8')).split('\n').filter(Boolean).length;
    const results = await store.commit([
      { kind: 'create', collection: 'outcomes', record: { id: 'x1', status: 'acting' } },
      { kind: 'create', collection: 'outcomes', record: { id: 'taken' } },
      { kind: 'create', collection: 'audit', record: { id: 'e1' } },
      { kind: 'update', collection: 'outcomes', record: { id: 'x1', status: 'acted' }, expectedVersion: 1 },
      { kind: 'update', collection: 'outcomes', record: { id: 'taken' }, expectedVersion: 7 },
      { kind: 'put', collection: 'settings', record: { id: 's' } },
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.name))).toEqual([
      'ok',
      'RecordExistsError',
      'ok',
      'ok',
      'VersionConflictError',
      'ok',
    ]);
    expect(await store.get('outcomes', 'x1')).toEqual({ id: 'x1', status: 'acted', version: 2 });
    expect(await store.get('audit', 'e1')).toEqual({ id: 'e1', version: 1 });
    expect((await fs.readFile(journal, 'utf8')).split('\n').filter(Boolean)).toHaveLength(before + 1);
  });

  it('after a reboot, applies every journalled commit again (record files written unsynced may be lost)', async () => {
    await store.commit([
      { kind: 'create', collection: 'outcomes', record: { id: 'a', status: 'acting' } },
      { kind: 'create', collection: 'audit', record: { id: 'e' } },
    ]);
    await store.update('outcomes', { id: 'a', status: 'acted' }, 1);
    // A power cut: the record files never reached the disk; the journal (synced) did.
    await fs.rm(path.join(dir, 'outcomes'), { recursive: true });
    await fs.rm(path.join(dir, 'audit'), { recursive: true });
    const journal = path.join(dir, '.journal');
    const [, ...lines] = (await fs.readFile(journal, 'utf8')).split('\n');
    await fs.writeFile(
      journal,
      [JSON.stringify({ journal: 1, boot: 'an-earlier-boot' }), ...lines].join('\n'),
    );

    const after = new JsonFileStore(dir);
    expect(await after.get('outcomes', 'a')).toEqual({ id: 'a', status: 'acted', version: 2 });
    expect(await after.get('audit', 'e')).toEqual({ id: 'e', version: 1 });
    // Checkpointed: the files are synced and the journal holds only this boot's header.
    expect((await fs.readFile(journal, 'utf8')).split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('ignores a commit torn by a crash mid-append: it never became durable', async () => {
    await store.create('runs', { id: 'a' });
    await fs.appendFile(path.join(dir, '.journal'), '[{"collection":"runs","id":"b","rec');
    const journal = path.join(dir, '.journal');
    const [, ...lines] = (await fs.readFile(journal, 'utf8')).split('\n');
    await fs.writeFile(
      journal,
      [JSON.stringify({ journal: 1, boot: 'an-earlier-boot' }), ...lines].join('\n'),
    );
    const after = new JsonFileStore(dir);
    expect((await after.list('runs')).map((r) => r.id)).toEqual(['a']);
  });
});

describe('JsonFileStore across processes', () => {
  it('lets exactly one of two processes win each update', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    for (const id of ids) await store.create('runs', { id, writer: 'none' });

    const children = await raceTwoWriters(FIXTURE, dir, ids);
    const outcomes = children.map((c) => c.outcomes);
    for (const c of children) expect(c.exitCode).toBe(0);

    for (const [i, id] of ids.entries()) {
      const pair = outcomes.map((o) => o[i]);
      expect(pair.filter((o) => o === 'won')).toHaveLength(1);
      expect(pair.filter((o) => o === 'VersionConflictError')).toHaveLength(1);
      const winner = children[pair.indexOf('won')]?.writer;
      expect(await store.get('runs', id)).toEqual({ id, writer: winner, version: 2 });
    }
    expect((await fs.readdir(path.join(dir, 'runs'))).every((n) => /^race-\d+\.json$/.test(n))).toBe(true);
  }, 30_000);

  it('takes over at once a lock whose process was killed, finishing its journalled write, and leaves no temp or lock file', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', DIE_HOLDING_LOCK, dir], { stdio: 'inherit' });
    const signal = await new Promise((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    expect(await fs.readdir(dir)).toContain('.store.lock');
    expect((await fs.readdir(path.join(dir, 'runs'))).some((n) => n.startsWith('.tmp-'))).toBe(true);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'runs', 'a.json'), 'utf8'))).toEqual({
      id: 'a',
      version: 1,
    });

    // The killed update was in the journal (synced) when it died: it stands, applied by
    // whoever takes the lock next.
    const started = Date.now();
    expect(await store.get('runs', 'a')).toEqual({ id: 'a', n: 2, version: 2 });
    await expect(store.update('runs', { id: 'a', n: 3 }, 2)).resolves.toEqual({ id: 'a', n: 3, version: 3 });
    expect(Date.now() - started).toBeLessThan(1_000);
    await store.list('runs');
    expect(await fs.readdir(path.join(dir, 'runs'))).toEqual(['a.json']);
    expect((await fs.readdir(dir)).sort()).toEqual(['.journal', 'by-status', 'runs']);
  }, 30_000);
});

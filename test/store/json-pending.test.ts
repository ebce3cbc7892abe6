import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { raceTwoWriters } from '../support/race-writers.ts';

const INTERIM = fileURLToPath(new URL('./fixtures/interim-commit.ts', import.meta.url));
const READ = fileURLToPath(new URL('./fixtures/read-records.ts', import.meta.url));
const RACE = fileURLToPath(new URL('./fixtures/race-claim.ts', import.meta.url));

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-json-pending-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Runs the interim-commit child, killed at `crashAt` when given; resolves with its signal. */
async function interimChild(crashAt?: string): Promise<NodeJS.Signals | null> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (crashAt === undefined) delete env.HANDOFF_CRASH_AT;
  else env.HANDOFF_CRASH_AT = crashAt;
  const child = spawn(process.execPath, ['--import', 'tsx', INTERIM, dir], { env, stdio: 'inherit' });
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
}

/** What a reader in another process sees of outcomes (and of outcomes/b by get and getMany). */
async function readElsewhere(): Promise<{ list: unknown[]; one: unknown; many: unknown }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    READ,
    dir,
    'outcomes',
    'b',
  ]);
  return JSON.parse(stdout) as { list: unknown[]; one: unknown; many: unknown };
}

const claimed = [
  { id: 'a', status: 'acting', version: 2 },
  { id: 'b', status: 'acting', version: 1 },
];
const recordFile = (id: string) => path.join(dir, 'outcomes', `${id}.json`);
const onDisk = async (id: string) => JSON.parse(await fs.readFile(recordFile(id), 'utf8')) as unknown;

describe('JsonFileStore interim commits', () => {
  it('keep their records in one pending file, seen by a reader in another process', async () => {
    expect(await interimChild()).toBeNull();
    expect(await onDisk('a')).toEqual({ id: 'a', status: 'held', version: 1 }); // not rewritten
    await expect(fs.access(recordFile('b'))).rejects.toThrow(/ENOENT/);
    expect(await fs.readdir(dir)).toContain('.pending');

    expect(await readElsewhere()).toEqual({ list: claimed, one: claimed[1], many: claimed[1] });
  }, 30_000);

  it('are written to their files by the next write, once, with the writes that settle them', async () => {
    expect(await interimChild()).toBeNull();
    const store = new JsonFileStore(dir);
    // Conditions see the pending records: b exists, a is at version 2.
    await expect(store.create('outcomes', { id: 'b' })).rejects.toThrow(/already exists/);
    await store.commit([
      { kind: 'update', collection: 'outcomes', record: { id: 'a', status: 'acted' }, expectedVersion: 2 },
      { kind: 'create', collection: 'audit', record: { id: 'e' } },
    ]);
    expect(await onDisk('a')).toEqual({ id: 'a', status: 'acted', version: 3 });
    expect(await onDisk('b')).toEqual(claimed[1]);
    expect((await fs.readdir(dir)).sort()).toEqual(['.journal', 'audit', 'by-status', 'outcomes']);
    expect((await fs.readdir(path.join(dir, 'outcomes'))).sort()).toEqual(['a.json', 'b.json']);
  }, 30_000);

  it.each(['store:journalled', 'store:pending-written'])(
    'killed at %s, stand once journalled: another process reads them and the next write applies them',
    async (crashAt) => {
      expect(await interimChild(crashAt)).toBe('SIGKILL');
      expect(await fs.readdir(dir)).toContain('.store.lock'); // died holding it

      expect((await readElsewhere()).list).toEqual(claimed);
      const store = new JsonFileStore(dir);
      await store.put('settings', { id: 's' });
      expect(await onDisk('a')).toEqual(claimed[0]);
      expect(await onDisk('b')).toEqual(claimed[1]);
      expect((await fs.readdir(dir)).sort()).toEqual(['.journal', 'by-status', 'outcomes', 'settings']);
    },
    30_000,
  );

  it('keep a journalled write whose files could not be written readable, and apply it with the next write', async () => {
    const store = new JsonFileStore(dir);
    await fs.writeFile(path.join(dir, 'outcomes'), 'not a folder'); // its record files cannot be written
    await expect(store.put('outcomes', { id: 'a', status: 'acted' })).rejects.toThrow();
    expect(await store.get('outcomes', 'a')).toEqual({ id: 'a', status: 'acted' }); // journalled: it stands

    await fs.rm(path.join(dir, 'outcomes'));
    await store.put('settings', { id: 's' });
    expect(await onDisk('a')).toEqual({ id: 'a', status: 'acted' });
    expect(await fs.readdir(dir)).not.toContain('.pending');
  });

  it('let exactly one of two processes claim each item, and its settle land, in the files too', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `item-${i}`);
    const children = await raceTwoWriters(RACE, dir, ids);
    const outcomes = children.map((c) => c.outcomes);
    for (const c of children) expect(c.exitCode).toBe(0);

    const store = new JsonFileStore(dir);
    for (const [i, id] of ids.entries()) {
      const pair = outcomes.map((o) => o[i]);
      expect(pair.filter((o) => o === 'won')).toHaveLength(1);
      expect(pair.filter((o) => o === 'RecordExistsError')).toHaveLength(1);
      const settled = { id, writer: children[pair.indexOf('won')]!.writer, status: 'acted', version: 2 };
      expect(await store.get('outcomes', id)).toEqual(settled);
      expect(await onDisk(id)).toEqual(settled);
    }
    expect(await fs.readdir(dir)).not.toContain('.pending');
  }, 30_000);

  it('after a reboot, applies the journal and drops the pending file', async () => {
    expect(await interimChild()).toBeNull();
    const journal = path.join(dir, '.journal');
    const [, ...lines] = (await fs.readFile(journal, 'utf8')).split('\n');
    await fs.writeFile(
      journal,
      [JSON.stringify({ journal: 1, boot: 'an-earlier-boot' }), ...lines].join('\n'),
    );

    const after = new JsonFileStore(dir);
    expect(await after.list('outcomes')).toEqual(expect.arrayContaining(claimed));
    expect(await onDisk('b')).toEqual(claimed[1]);
    expect(await fs.readdir(dir)).not.toContain('.pending');
  }, 30_000);
});

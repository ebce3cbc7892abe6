import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Collection, JsonRecord, Write } from '../../shared/store/store.ts';

const STATUS_COMMIT = fileURLToPath(new URL('./fixtures/status-commit.ts', import.meta.url));

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-status-index-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const ids = (records: JsonRecord[]) => records.map((r) => r.id).sort();
const markers = async (collection: Collection, status: string) =>
  (await fs.readdir(path.join(dir, 'by-status', collection, status)).catch(() => [])).sort();
const creates = (collection: Collection, records: JsonRecord[]): Write[] =>
  records.map((record) => ({ kind: 'create', collection, record }));
const settled = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `d${i}`, status: 'answered', run_id: `r${i % 5}` }));

describe('JsonFileStore status index', () => {
  it('lists an indexed status from its markers, never reading the settled records', async () => {
    const store = new JsonFileStore(dir);
    await store.commit(creates('decisions', settled(50)));
    await store.commit(
      creates('decisions', [
        { id: 'p1', status: 'pending' },
        { id: 'p2', status: 'pending' },
      ]),
    );
    expect(await markers('decisions', 'pending')).toEqual(['p1.json', 'p2.json']);

    // A settled record that cannot be read: a listing of every record fails, the index's does not.
    await fs.writeFile(path.join(dir, 'decisions', 'd7.json'), '{not json');
    await expect(store.list('decisions')).rejects.toThrow(/not valid JSON/);
    await expect(store.listWithStatus('decisions', 'answered')).rejects.toThrow(/not valid JSON/); // not indexed
    expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['p1', 'p2']);
    // ...and a reader in a fresh process, which finds the index built.
    expect(ids(await new JsonFileStore(dir).listWithStatus('decisions', 'pending'))).toEqual(['p1', 'p2']);
  });

  it("moves a record's marker with its status, and drops it when the record is deleted", async () => {
    const store = new JsonFileStore(dir);
    const run = await store.create('runs', { id: 'r1', status: 'running' });
    expect(await markers('runs', 'running')).toEqual(['r1.json']);
    const waiting = await store.update('runs', { ...run, status: 'waiting' }, run.version);
    expect(await markers('runs', 'running')).toEqual([]);
    expect(await markers('runs', 'waiting')).toEqual(['r1.json']);
    expect(ids(await store.listWithStatus('runs', 'waiting'))).toEqual(['r1']);
    await store.update('runs', { ...waiting, status: 'completed' }, waiting.version);
    expect(await markers('runs', 'waiting')).toEqual([]);
    expect(await store.listWithStatus('runs', 'waiting')).toEqual([]);

    await store.create('decisions', { id: 'q1', status: 'pending' });
    await store.delete('decisions', 'q1');
    expect(await markers('decisions', 'pending')).toEqual([]);
    expect(await store.listWithStatus('decisions', 'pending')).toEqual([]);
  });

  it('checks each marked record: a marker left over names nothing', async () => {
    const store = new JsonFileStore(dir);
    await store.commit(creates('decisions', [...settled(3), { id: 'p1', status: 'pending' }]));
    await fs.writeFile(path.join(dir, 'by-status', 'decisions', 'pending', 'd1.json'), '');
    await fs.writeFile(path.join(dir, 'by-status', 'decisions', 'pending', 'gone.json'), '');
    expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['p1']);
  });

  it('lays the pending interim commit over the markers', async () => {
    const store = new JsonFileStore(dir);
    const held = await store.create('outcomes', { id: 'a', status: 'held' });
    await store.commit(
      [
        { kind: 'update', collection: 'outcomes', record: { ...held, status: 'acting' }, expectedVersion: 1 },
        { kind: 'create', collection: 'outcomes', record: { id: 'b', status: 'acting' } },
      ],
      { interim: true },
    );
    expect(await markers('outcomes', 'held')).toEqual(['a.json']); // the file still says held
    expect(await markers('outcomes', 'acting')).toEqual([]); // the claims are in the pending file
    expect(await store.listWithStatus('outcomes', 'held')).toEqual([]);
    expect(ids(await store.listWithStatus('outcomes', 'acting'))).toEqual(['a', 'b']);

    await store.put('settings', { id: 'any' }); // the next write applies the pending commit
    expect(await markers('outcomes', 'held')).toEqual([]);
    expect(await markers('outcomes', 'acting')).toEqual(['a.json', 'b.json']);
  });

  it('indexes a state directory written before the index', async () => {
    const before = new JsonFileStore(dir);
    await before.commit([
      ...creates('decisions', [...settled(4), { id: 'p1', status: 'pending' }]),
      ...creates('runs', [
        { id: 'r1', status: 'waiting' },
        { id: 'r2', status: 'failed' },
      ]),
      ...creates('outcomes', [
        { id: 'o1', status: 'held' },
        { id: 'o2', status: 'acted' },
      ]),
    ]);
    await fs.rm(path.join(dir, 'by-status'), { recursive: true }); // as the previous version left it

    const store = new JsonFileStore(dir);
    // A write first: it marks what it writes, and vouches for nothing else in the folder.
    await store.create('decisions', { id: 'p2', status: 'pending' });
    await store.create('runs', { id: 'r3', status: 'completed' });
    expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['p1', 'p2']);
    expect(await markers('decisions', 'pending')).toEqual(['p1.json', 'p2.json']);
    expect(ids(await store.listWithStatus('runs', 'waiting'))).toEqual(['r1']);
    expect(ids(await store.listWithStatus('outcomes', 'held'))).toEqual(['o1']);
    expect(await markers('outcomes', 'held')).toEqual(['o1.json']);
    expect(await markers('outcomes', 'acted')).toEqual([]);

    // Indexed now: a settled record that cannot be read is not read again.
    await fs.writeFile(path.join(dir, 'decisions', 'd2.json'), '{not json');
    expect(ids(await new JsonFileStore(dir).listWithStatus('decisions', 'pending'))).toEqual(['p1', 'p2']);
  });

  it('finds records copied into a collection by hand, as a restore or an older build leaves them', async () => {
    const store = new JsonFileStore(dir);
    await store.commit(creates('decisions', [...settled(3), { id: 'p1', status: 'pending' }]));
    expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['p1']);
    // Later than the store's write by more than a clock tick, as any hand copy is: the folder's time moves.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fs.writeFile(
      path.join(dir, 'decisions', 'p2.json'),
      JSON.stringify({ id: 'p2', status: 'pending' }),
    );
    await fs.writeFile(
      path.join(dir, 'decisions', 'd0.json'),
      JSON.stringify({ id: 'd0', status: 'pending' }),
    );
    await fs.rm(path.join(dir, 'decisions', 'p1.json'));
    await store.create('decisions', { id: 'p3', status: 'pending' }); // a write in between vouches for none of it
    expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['d0', 'p2', 'p3']);
    expect(await markers('decisions', 'pending')).toEqual(['d0.json', 'p2.json', 'p3.json']);
  });

  it('makes no file when reading a state directory with nothing indexed yet', async () => {
    const fresh = path.join(dir, 'fresh');
    const store = new JsonFileStore(fresh);
    expect(await store.listWithStatus('decisions', 'pending')).toEqual([]);
    expect(await store.listByIdPrefix('decisions', 'dec_')).toEqual([]);
    expect(existsSync(fresh)).toBe(false);
  });

  it("lists an id prefix from the folder's names, reading only those records", async () => {
    const store = new JsonFileStore(dir);
    await store.commit(
      creates('decisions', [
        ...settled(20),
        { id: 'dec_0badcafe_000000000001', status: 'pending' },
        { id: 'dec_0badcafe_000000000002', status: 'answered' },
        { id: 'dec_1badcafe_000000000001', status: 'pending' },
      ]),
    );
    await store.commit(
      [
        {
          kind: 'create',
          collection: 'decisions',
          record: { id: 'dec_0badcafe_000000000003', status: 'pending' },
        },
      ],
      { interim: true },
    );
    await fs.writeFile(path.join(dir, 'decisions', 'd3.json'), '{not json');
    expect(ids(await store.listByIdPrefix('decisions', 'dec_0badcafe_'))).toEqual([
      'dec_0badcafe_000000000001',
      'dec_0badcafe_000000000002',
      'dec_0badcafe_000000000003',
    ]);
  });

  for (const crashAt of ['store:temp-written', 'store:marked', 'store:renamed']) {
    it(`killed at ${crashAt}, lists what the commit wrote once another process takes over`, async () => {
      expect(await statusChild(crashAt)).toBe('SIGKILL');
      const store = new JsonFileStore(dir); // breaks the dead writer's lock and applies its commit
      expect(ids(await store.listWithStatus('decisions', 'pending'))).toEqual(['q2']);
      expect(ids(await store.listWithStatus('runs', 'waiting'))).toEqual(['r1']);
      expect(await store.listWithStatus('runs', 'running')).toEqual([]);
      expect(await markers('decisions', 'pending')).toEqual(['q2.json']);
      expect(await markers('runs', 'running')).toEqual([]);
    }, 30_000);
  }
});

/** Runs the status-commit child, killed at `crashAt`; resolves with its signal. */
async function statusChild(crashAt: string): Promise<NodeJS.Signals | null> {
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_CRASH_AT: crashAt };
  const child = spawn(process.execPath, ['--import', 'tsx', STATUS_COMMIT, dir], { env, stdio: 'inherit' });
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
}

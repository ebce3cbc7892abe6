import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RecordExistsError, VersionConflictError } from '../../shared/errors/index.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { readCache } from '../../shared/store/read-cache.ts';
import { initStore, openStore } from '../../shared/store/open-store.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { MemoryStore } from '../../bench/memory-store.ts';
import {
  commitAll,
  getAll,
  getEach,
  countWithStatus,
  listByIdPrefix,
  listStatusPage,
  type Page,
  type Store,
  type Write,
} from '../../shared/store/store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';

type Fixture = { store: Store; teardown(): Promise<void> };

/** A fresh dynalite and a DynamoDB client for it. */
async function freshDynalite() {
  const dynalite = await startDynalite();
  return { dynalite, client: dynaliteClient(dynalite.endpoint) };
}

/** The behaviour every Store backend must share. */
function describeStoreContract(name: string, makeStore: () => Promise<Fixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fixture: Fixture;
    const store = (): Store => fixture.store;
    beforeAll(async () => {
      fixture = await makeStore();
    });
    afterAll(async () => {
      await fixture.teardown();
    });

    it('returns undefined for a missing id', async () => {
      expect(await store().get('runs', 'nope')).toBeUndefined();
    });

    it('creates a record at version 1 and reads it back', async () => {
      const created = await store().create('runs', { id: 'r1', status: 'queued' });
      expect(created).toEqual({ id: 'r1', status: 'queued', version: 1 });
      expect(await store().get('runs', 'r1')).toEqual(created);
    });

    it('refuses to create a taken id', async () => {
      await store().create('runs', { id: 'r2', n: 1 });
      await expect(store().create('runs', { id: 'r2', n: 2 })).rejects.toBeInstanceOf(RecordExistsError);
      expect(await store().get('runs', 'r2')).toEqual({ id: 'r2', n: 1, version: 1 });
    });

    it('updates with the right version and bumps it', async () => {
      await store().create('runs', { id: 'r3', n: 1 });
      const updated = await store().update('runs', { id: 'r3', n: 2 }, 1);
      expect(updated).toEqual({ id: 'r3', n: 2, version: 2 });
      expect(await store().get('runs', 'r3')).toEqual(updated);
    });

    it('rejects a stale version, carrying the stored record, and changes nothing', async () => {
      await store().create('runs', { id: 'r4', n: 1 });
      await store().update('runs', { id: 'r4', n: 2 }, 1);
      const err: unknown = await store()
        .update('runs', { id: 'r4', n: 3 }, 1)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VersionConflictError);
      expect((err as VersionConflictError).current).toEqual({ id: 'r4', n: 2, version: 2 });
      expect(await store().get('runs', 'r4')).toEqual({ id: 'r4', n: 2, version: 2 });
    });

    it('rejects an update of a missing record', async () => {
      const err: unknown = await store()
        .update('runs', { id: 'ghost' }, 1)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VersionConflictError);
      expect((err as VersionConflictError).current).toBeUndefined();
      expect(await store().get('runs', 'ghost')).toBeUndefined();
    });

    it('lets exactly one of two concurrent updates win', async () => {
      await store().create('runs', { id: 'r5', who: 'nobody' });
      const results = await Promise.allSettled([
        store().update('runs', { id: 'r5', who: 'a' }, 1),
        store().update('runs', { id: 'r5', who: 'b' }, 1),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.reason).toBeInstanceOf(VersionConflictError);
      expect(await store().get('runs', 'r5')).toEqual(won[0]?.value);
    });

    it('puts unconditionally', async () => {
      await store().put('settings', { id: 's1', a: 1 });
      await store().put('settings', { id: 's1', a: 2 });
      expect(await store().get('settings', 's1')).toEqual({ id: 's1', a: 2 });
    });

    it('lists every record of a collection and none of another', async () => {
      await store().create('tickets', { id: 't1' });
      await store().create('tickets', { id: 't2' });
      await store().put('tickets', { id: 't3' });
      await store().create('outcomes', { id: 't4' });
      const ids = (await store().list('tickets')).map((r) => r.id).sort();
      expect(ids).toEqual(['t1', 't2', 't3']);
      expect(await store().list('rules')).toEqual([]);
    });

    it('lists by status: a record leaves the list when its status changes, and comes back whole', async () => {
      const at = '2026-11-30T08:00:00.000Z';
      const sd1 = await store().create('decisions', { id: 'sd1', status: 'pending', created_at: at, n: 1 });
      await store().create('decisions', { id: 'sd2', status: 'pending', created_at: at, n: 2 });
      await store().create('decisions', { id: 'sd3', status: 'answered', created_at: at, n: 3 });
      await store().create('runs', { id: 'rs1', status: 'running', started_at: at });
      await store().create('runs', { id: 'rs2', status: 'completed', started_at: at });
      const ids = async (c: 'decisions' | 'runs', status: string) =>
        (await store().listWithStatus(c, status)).map((r) => r.id).sort();

      expect(await ids('decisions', 'pending')).toEqual(['sd1', 'sd2']);
      expect(await store().listWithStatus('decisions', 'pending')).toContainEqual(sd1); // no index fields leak
      expect(await ids('decisions', 'answered')).toEqual(['sd3']); // not indexed: still right
      expect(await ids('runs', 'running')).toEqual(['rs1']);
      expect(await ids('runs', 'completed')).toEqual(['rs2']);

      await store().update('decisions', { ...sd1, status: 'answered' }, 1);
      await store().put('runs', { id: 'rs1', status: 'waiting', started_at: at });
      expect(await ids('decisions', 'pending')).toEqual(['sd2']);
      expect(await ids('decisions', 'answered')).toEqual(['sd1', 'sd3']);
      expect(await ids('runs', 'running')).toEqual([]);
      expect(await ids('runs', 'waiting')).toEqual(['rs1']);
      await store().delete('decisions', 'sd2');
      expect(await ids('decisions', 'pending')).toEqual([]);
    });

    it('lists the records whose id starts with a prefix, none of another collection', async () => {
      await store().create('decisions', { id: 'dec_run1_a', status: 'pending' });
      await store().put('decisions', { id: 'dec_run1_b', status: 'answered' });
      await store().create('decisions', { id: 'dec_run2_a', status: 'pending' });
      await store().create('outcomes', { id: 'dec_run1_c' });
      // Next to the prefix `dec_run1_` on either side (DynamoDB reads the range up to `dec_run1\``).
      await store().create('decisions', { id: 'dec_run1^' });
      await store().create('decisions', { id: 'dec_run1`' });
      await store().create('decisions', { id: 'dec_run1`a' });
      await store().create('decisions', { id: 'dec_ü✓_a' });
      await store().create('decisions', { id: 'dec_ü✔' });
      const ids = async (prefix: string) =>
        (await listByIdPrefix(store(), 'decisions', prefix)).map((r) => r.id).sort();

      expect(await ids('dec_run1_')).toEqual(['dec_run1_a', 'dec_run1_b']);
      expect(await listByIdPrefix(store(), 'decisions', 'dec_run2_')).toEqual([
        { id: 'dec_run2_a', status: 'pending', version: 1 },
      ]);
      expect(await ids('dec_run3_')).toEqual([]);
      expect(await ids('dec_ü✓')).toEqual(['dec_ü✓_a']);
      expect(await ids('dec_run1')).toEqual(['dec_run1^', 'dec_run1_a', 'dec_run1_b', 'dec_run1`', 'dec_run1`a']);
    });

    it('pages and counts a status without reading it whole: each pending record once, a page at a time', async () => {
      const before = await countWithStatus(store(), 'decisions', 'pending');
      for (let i = 0; i < 7; i++)
        await store().create('decisions', {
          id: `dec_pgrun_${i}`,
          status: i === 3 ? 'answered' : 'pending',
          created_at: `2026-11-30T08:00:0${i}.000Z`,
        });
      await store().create('decisions', {
        id: 'dec_other_0',
        status: 'pending',
        created_at: '2026-11-30T09:00:00.000Z',
      });
      expect(await countWithStatus(store(), 'decisions', 'pending')).toBe(before + 7);
      expect(await countWithStatus(store(), 'decisions', 'pending', 'dec_pgrun_')).toBe(6);
      expect(await countWithStatus(store(), 'decisions', 'answered', 'dec_pgrun_')).toBe(1); // not indexed: still right

      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const page: Page = await listStatusPage(store(), 'decisions', 'pending', { limit: 2, cursor });
        expect(page.items.length).toBeLessThanOrEqual(2);
        for (const r of page.items) expect(r.status).toBe('pending');
        seen.push(...page.items.map((r) => r.id));
        cursor = page.next_cursor;
        if (cursor === null) break;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(before + 7);
      expect(seen.filter((id) => id.startsWith('dec_pgrun_')).sort()).toEqual([
        'dec_pgrun_0',
        'dec_pgrun_1',
        'dec_pgrun_2',
        'dec_pgrun_4',
        'dec_pgrun_5',
        'dec_pgrun_6',
      ]);
    });

    it('deletes, and deleting a missing record is fine', async () => {
      await store().create('decisions', { id: 'd1' });
      await store().delete('decisions', 'd1');
      expect(await store().get('decisions', 'd1')).toBeUndefined();
      await store().delete('decisions', 'd1');
      await store().create('decisions', { id: 'd1' });
    });

    it.each(['<abc@x.com>', 'a/b/c', 'with space', '.', '..', '.hidden', '%2E', 'ünï ✓', '../escape'])(
      'round-trips the id %j',
      async (id) => {
        await store().create('interrupts', { id, n: 1 });
        await store().update('interrupts', { id, n: 2 }, 1);
        expect(await store().get('interrupts', id)).toEqual({ id, n: 2, version: 2 });
        expect((await store().list('interrupts')).map((r) => r.id)).toContain(id);
      },
    );

    it('keeps ids that differ only in encoding apart', async () => {
      await store().create('audit', { id: '.x', which: 'dot' });
      await store().create('audit', { id: '%2Ex', which: 'escaped' });
      expect(await store().get('audit', '.x')).toMatchObject({ which: 'dot' });
      expect(await store().get('audit', '%2Ex')).toMatchObject({ which: 'escaped' });
    });

    it('reads many ids at once: in their order, undefined where missing, a repeated id twice', async () => {
      await store().create('proposals', { id: 'gm1', n: 1 });
      await store().put('proposals', { id: 'gm2', n: 2 });
      const ids = ['gm2', 'nope', 'gm1', 'gm2'];
      expect(await getAll(store(), 'proposals', ids)).toEqual([
        { id: 'gm2', n: 2 },
        undefined,
        { id: 'gm1', n: 1, version: 1 },
        { id: 'gm2', n: 2 },
      ]);
      expect(await getAll(store(), 'rules', ['gm1'])).toEqual([undefined]);
      expect(await getAll(store(), 'proposals', [])).toEqual([]);
    });

    it('reads records of several collections at once: in their order, the same id apart per collection', async () => {
      await store().create('tokens', { id: 'ge1', spent: true });
      await store().put('settings', { id: 'ge1', theme: 'dark' });
      await store().create('decisions', { id: 'ge2', status: 'pending' });
      const found = await getEach(store(), [
        { collection: 'settings', id: 'ge1' },
        { collection: 'decisions', id: 'ge2' },
        { collection: 'runs', id: 'ge1' },
        { collection: 'tokens', id: 'ge1' },
      ]);
      expect(found).toEqual([
        { id: 'ge1', theme: 'dark' },
        { id: 'ge2', status: 'pending', version: 1 },
        undefined,
        { id: 'ge1', spent: true, version: 1 },
      ]);
      expect(await getEach(store(), [])).toEqual([]);
    });

    it('commits many writes: results in order, a failed condition reported with the stored record, the rest landed', async () => {
      await store().create('outcomes', { id: 'c-taken', n: 0 });
      await store().create('outcomes', { id: 'c-moved', n: 0 });
      await store().update('outcomes', { id: 'c-moved', n: 1 }, 1);
      await store().create('outcomes', { id: 'c-due', n: 0 });

      const results = await commitAll(store(), [
        { kind: 'create', collection: 'outcomes', record: { id: 'c-new', n: 1 } },
        { kind: 'create', collection: 'outcomes', record: { id: 'c-taken', n: 1 } },
        { kind: 'update', collection: 'outcomes', record: { id: 'c-moved', n: 2 }, expectedVersion: 1 },
        { kind: 'update', collection: 'outcomes', record: { id: 'c-due', n: 2 }, expectedVersion: 1 },
        { kind: 'put', collection: 'audit', record: { id: 'c-entry', n: 1 } },
      ]);

      expect(results.map((r) => r.ok)).toEqual([true, false, false, true, true]);
      expect(results[0]).toEqual({ ok: true, record: { id: 'c-new', n: 1, version: 1 } });
      expect(results[3]).toEqual({ ok: true, record: { id: 'c-due', n: 2, version: 2 } });
      const [taken, moved] = [results[1], results[2]].map((r) => (r?.ok === false ? r.error : undefined));
      expect(taken).toBeInstanceOf(RecordExistsError);
      expect(moved).toBeInstanceOf(VersionConflictError);
      expect((moved as VersionConflictError).current).toEqual({ id: 'c-moved', n: 1, version: 2 });
      expect(await store().get('outcomes', 'c-new')).toEqual({ id: 'c-new', n: 1, version: 1 });
      expect(await store().get('outcomes', 'c-taken')).toEqual({ id: 'c-taken', n: 0, version: 1 });
      expect(await store().get('outcomes', 'c-moved')).toEqual({ id: 'c-moved', n: 1, version: 2 });
      expect(await store().get('outcomes', 'c-due')).toEqual({ id: 'c-due', n: 2, version: 2 });
      expect(await store().get('audit', 'c-entry')).toEqual({ id: 'c-entry', n: 1 });
    });

    it('commits more writes than one transaction holds, two to one record in order', async () => {
      const writes: Write[] = [];
      for (let i = 0; i < 130; i++)
        writes.push({ kind: 'put', collection: 'usage', record: { id: `cu${i}`, i } });
      writes.push({ kind: 'create', collection: 'usage', record: { id: 'cu-twice', n: 1 } });
      writes.push({
        kind: 'update',
        collection: 'usage',
        record: { id: 'cu-twice', n: 2 },
        expectedVersion: 1,
      });
      writes.push({ kind: 'put', collection: 'usage', record: { id: 'cu0', i: 'last' } });

      const results = await commitAll(store(), writes);

      expect(results.every((r) => r.ok)).toBe(true);
      expect(results).toHaveLength(133);
      expect(await store().get('usage', 'cu129')).toEqual({ id: 'cu129', i: 129 });
      expect(await store().get('usage', 'cu-twice')).toEqual({ id: 'cu-twice', n: 2, version: 2 });
      expect(await store().get('usage', 'cu0')).toEqual({ id: 'cu0', i: 'last' });
    });

    it('reads an interim commit back like any other, its conditions holding, until the next commit settles it', async () => {
      await store().create('outcomes', { id: 'i-held', status: 'held' });
      const claims = await commitAll(
        store(),
        [
          {
            kind: 'update',
            collection: 'outcomes',
            record: { id: 'i-held', status: 'acting' },
            expectedVersion: 1,
          },
          { kind: 'create', collection: 'outcomes', record: { id: 'i-new', status: 'acting' } },
        ],
        { interim: true },
      );
      expect(claims.every((r) => r.ok)).toBe(true);
      expect(await store().get('outcomes', 'i-new')).toEqual({ id: 'i-new', status: 'acting', version: 1 });
      expect(await getAll(store(), 'outcomes', ['i-held', 'i-new'])).toEqual([
        { id: 'i-held', status: 'acting', version: 2 },
        { id: 'i-new', status: 'acting', version: 1 },
      ]);
      expect((await store().listWithStatus('outcomes', 'acting')).map((r) => r.id).sort()).toEqual([
        'i-held',
        'i-new',
      ]);
      await expect(store().create('outcomes', { id: 'i-new' })).rejects.toBeInstanceOf(RecordExistsError);
      await expect(store().update('outcomes', { id: 'i-held' }, 1)).rejects.toBeInstanceOf(
        VersionConflictError,
      );

      const settled = await commitAll(store(), [
        {
          kind: 'update',
          collection: 'outcomes',
          record: { id: 'i-held', status: 'acted' },
          expectedVersion: 2,
        },
        { kind: 'put', collection: 'audit', record: { id: 'i-entry' } },
      ]);
      expect(settled.every((r) => r.ok)).toBe(true);
      expect(await store().get('outcomes', 'i-held')).toEqual({ id: 'i-held', status: 'acted', version: 3 });
      expect(await store().get('outcomes', 'i-new')).toEqual({ id: 'i-new', status: 'acting', version: 1 });
      expect(await store().get('audit', 'i-entry')).toEqual({ id: 'i-entry' });
    });

    it('round-trips nested objects, arrays and null', async () => {
      const record = {
        id: 'w1',
        steps: [{ name: 'a', args: [1, 'two', null, { deep: [true, false] }] }],
        meta: { owner: null, tags: [], empty: {}, text: '', n: 0.5 },
      };
      await store().create('workflows', record);
      expect(await store().get('workflows', 'w1')).toEqual({ ...record, version: 1 });
    });
  });
}

describeStoreContract('JsonFileStore', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-store-'));
  return {
    store: new JsonFileStore(dir),
    teardown: () => fs.rm(dir, { recursive: true, force: true }),
  };
});

// A step's or a request's read cache over a backend keeps every promise of the contract.
describeStoreContract('ReadCacheStore (over JsonFileStore)', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-store-'));
  return {
    store: readCache(new JsonFileStore(dir)),
    teardown: () => fs.rm(dir, { recursive: true, force: true }),
  };
});

describeStoreContract('MemoryStore (the engine bench’s in-memory variant)', async () => ({
  store: new MemoryStore(),
  teardown: async () => {},
}));

describeStoreContract('DynamoDbStore (dynalite)', async () => {
  const { dynalite, client } = await freshDynalite();
  const table = `handoff-test-${randomUUID()}`;
  await ensureTable(client, table);
  return {
    store: new DynamoDbStore(createDocumentClient(client), table),
    teardown: async () => {
      client.destroy();
      await dynalite.stop();
    },
  };
});

// The same contract in a workspace that shares its table with a busy neighbour holding the
// contract's ids in every collection it touches: a leak fails a create or a list.
describeStoreContract("DynamoDbStore (dynalite, workspace 'team-b' beside a busy 'default')", async () => {
  const { dynalite, client } = await freshDynalite();
  const table = `handoff-test-${randomUUID()}`;
  await ensureTable(client, table);
  const docs = createDocumentClient(client);
  const neighbour = new DynamoDbStore(docs, table);
  const at = '2026-11-30T08:00:00.000Z';
  const ids = ['r1', 'r2', 'r3', 'r4', 'r5', 's1', 't1', 't2', 't3', 't4', 'sd1', 'sd2', 'rs1', 'd1'];
  for (const collection of ['runs', 'settings', 'tickets', 'outcomes', 'decisions', 'audit'] as const)
    for (const id of [...ids, 'c-taken', 'c-moved', 'c-due', 'gm1', '.x'])
      await neighbour.put(collection, { id, status: 'pending', created_at: at, started_at: at, version: 7 });
  await neighbour.put('runs', { id: 'n-run', status: 'running', started_at: at });
  return {
    store: new DynamoDbStore(docs, table, { workspace: 'team-b' }),
    teardown: async () => {
      client.destroy();
      await dynalite.stop();
    },
  };
});

// The real DynamoDB engine (transactions included): see test/support/dynamodb-local.ts.
describeStoreContract('DynamoDbStore (DynamoDB Local)', async () => {
  const local = await startDynamoDbLocal();
  const client = dynaliteClient(local.endpoint);
  await ensureTable(client, 'handoff-contract');
  return {
    store: new DynamoDbStore(createDocumentClient(client), 'handoff-contract'),
    teardown: async () => {
      client.destroy();
      await local.stop();
    },
  };
});

describe('DynamoDbStore status index', () => {
  it('reads pending decisions and running runs through the sparse index, not the whole collection', async () => {
    const { dynalite, client } = await freshDynalite();
    try {
      const table = `handoff-index-${randomUUID()}`;
      await ensureTable(client, table);
      const docs = createDocumentClient(client);
      const store = new DynamoDbStore(docs, table);
      const at = '2026-11-30T08:00:00.000Z';
      for (let i = 0; i < 20; i++)
        await store.create('decisions', { id: `a${i}`, status: 'answered', created_at: at });
      await store.create('decisions', { id: 'p1', status: 'pending', created_at: at });
      const queries: Record<string, unknown>[] = [];
      const send = docs.send.bind(docs);
      docs.send = ((command: { input: Record<string, unknown> }) => {
        queries.push(command.input);
        return send(command as never);
      }) as typeof docs.send;

      expect((await store.listWithStatus('decisions', 'pending')).map((r) => r.id)).toEqual(['p1']);
      expect(queries).toEqual([expect.objectContaining({ IndexName: 'pending' })]);
      const raw = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: 'pending',
          KeyConditionExpression: 'gsi1pk = :g',
          ExpressionAttributeValues: { ':g': { S: 'default#decisions#pending' } },
        }),
      );
      expect(raw.ScannedCount).toBe(1); // the 20 answered ones are not in the index at all
    } finally {
      client.destroy();
      await dynalite.stop();
    }
  });
});

describe('DynamoDbStore runs-by-workflow index', () => {
  it("lists a workflow's runs newest first through one Query on the index", async () => {
    const { dynalite, client } = await freshDynalite();
    try {
      const table = `handoff-by-workflow-${randomUUID()}`;
      await ensureTable(client, table);
      const docs = createDocumentClient(client);
      const store = new DynamoDbStore(docs, table);
      const run = (id: string, workflow: string, day: number) => ({
        id,
        workflow_id: workflow,
        status: 'succeeded',
        started_at: `2026-11-${String(day).padStart(2, '0')}T08:00:00.000Z`,
      });
      await store.create('runs', run('a1', 'inbox', 1));
      await store.create('runs', run('b1', 'prs', 2));
      await store.create('runs', run('a3', 'inbox', 3));
      await store.create('runs', run('a2', 'inbox', 2));
      const queries: Record<string, unknown>[] = [];
      const send = docs.send.bind(docs);
      docs.send = ((command: { input: Record<string, unknown> }) => {
        queries.push(command.input);
        return send(command as never);
      }) as typeof docs.send;

      const runs = await store.listRunsOf('inbox');
      expect(runs.map((r) => r.id)).toEqual(['a3', 'a2', 'a1']);
      expect(runs[0]).toEqual({ ...run('a3', 'inbox', 3), version: 1 }); // no index keys leak out
      expect(queries).toEqual([
        expect.objectContaining({ IndexName: 'runs-by-workflow', ScanIndexForward: false }),
      ]);
      await expect(store.create('runs', { id: 'x', gsi2pk: 'mine' })).rejects.toThrow(/reserved/);
    } finally {
      client.destroy();
      await dynalite.stop();
    }
  });
});

describe('ensureTable', () => {
  it('creates the table once, then reports that it exists', async () => {
    const { dynalite, client } = await freshDynalite();
    try {
      expect(await ensureTable(client, 'handoff-ensure')).toBe('created');
      expect(await ensureTable(client, 'handoff-ensure')).toBe('exists');
    } finally {
      client.destroy();
      await dynalite.stop();
    }
  });
});

describe('openStore / initStore', () => {
  it('uses JSON files by default and creates the state directory', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-init-'));
    try {
      const env = loadEnv({ HANDOFF_STATE_DIR: path.join(root, 'state') });
      expect(openStore(env)).toBeInstanceOf(JsonFileStore);
      expect(await initStore(env)).toContain(path.join(root, 'state'));
      expect((await fs.stat(path.join(root, 'state'))).isDirectory()).toBe(true);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('uses DynamoDB when asked, creating the table once', async () => {
    const dynalite = await startDynalite();
    try {
      const env = loadEnv({
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        HANDOFF_TABLE: 'h-init',
      });
      expect(await initStore(env)).toMatch(/^Created DynamoDB table h-init/);
      expect(await initStore(env)).toMatch(/^DynamoDB table h-init already exists/);
      const store = openStore(env);
      expect(store).toBeInstanceOf(DynamoDbStore);
      await store.create('runs', { id: 'x' });
      expect(await store.get('runs', 'x')).toEqual({ id: 'x', version: 1 });
    } finally {
      await dynalite.stop();
    }
  });
});

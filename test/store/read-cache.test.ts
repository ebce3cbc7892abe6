/**
 * The read cache a Lambda step or an answer works through (shared/store/read-cache.ts), on
 * DynamoDB (dynalite) with every request counted: a record is read once, writes keep their
 * conditions, and another writer is seen as soon as one of ours loses to it.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RecordExistsError, VersionConflictError } from '../../shared/errors/index.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { readCache } from '../../shared/store/read-cache.ts';
import type { CommitOptions, Store, Write } from '../../shared/store/store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';

describe('ReadCacheStore', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  let client: DynamoDBClient;
  const sent: string[] = [];
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynaliteClient(dynalite.endpoint);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'serialize', name: 'countRequests' },
    );
  });
  afterAll(async () => {
    client.destroy();
    await dynalite.stop();
  });

  async function backend(): Promise<DynamoDbStore> {
    const table = `handoff-cache-${randomUUID()}`;
    await ensureTable(client, table);
    return new DynamoDbStore(createDocumentClient(client), table);
  }
  const requests = async (act: () => Promise<unknown>) => {
    sent.length = 0;
    await act();
    return sent.splice(0);
  };

  it('reads a record once, prefetches many in one batch, and hands out copies', async () => {
    // Prepare
    const store = await backend();
    await store.create('runs', { id: 'r1', status: 'running' });
    await store.create('workflows', { id: 'w1', name: 'Inbox' });
    const cache = readCache(store);

    // Act + Assess: one batch for both (a missing one remembered as missing), then nothing.
    expect(
      await requests(() =>
        cache.prefetch([
          { collection: 'runs', id: 'r1' },
          { collection: 'workflows', id: 'w1' },
          { collection: 'settings', id: 'app' },
        ]),
      ),
    ).toEqual(['BatchGetItemCommand']);
    let read: unknown;
    expect(
      await requests(async () => {
        read = await cache.get('runs', 'r1');
        await cache.get('workflows', 'w1');
        expect(await cache.get('settings', 'app')).toBeUndefined();
      }),
    ).toEqual([]);
    (read as { status: string }).status = 'changed by the caller';
    expect(await cache.get('runs', 'r1')).toEqual({ id: 'r1', status: 'running', version: 1 });
  });

  it('keeps every write conditional, and sees another writer once a write of ours loses to it', async () => {
    // Prepare: the cache has read version 1; another process moves it to version 2.
    const store = await backend();
    await store.create('runs', { id: 'r1', status: 'running' });
    const cache = readCache(store);
    const mine = (await cache.get('runs', 'r1'))!;
    await store.update('runs', { ...mine, status: 'failed' }, 1);

    // Act: our update from the cached version loses ...
    const lost = await cache.update('runs', { ...mine, status: 'waiting' }, 1).catch((e: unknown) => e);

    // Assess: ... with the stored record, which the cache now serves without another read.
    expect(lost).toBeInstanceOf(VersionConflictError);
    expect(await store.get('runs', 'r1')).toMatchObject({ status: 'failed', version: 2 });
    expect(await requests(() => cache.get('runs', 'r1'))).toEqual([]);
    expect(await cache.get('runs', 'r1')).toMatchObject({ status: 'failed', version: 2 });
    // A write that lands is what the cache serves next.
    await cache.update('runs', { id: 'r1', status: 'waiting' }, 2);
    expect(await requests(() => cache.get('runs', 'r1'))).toEqual([]);
    expect(await cache.get('runs', 'r1')).toMatchObject({ status: 'waiting', version: 3 });
  });

  it('takes commit results in, reads again after a failed one, and never caches a list', async () => {
    // Prepare: the cache knows d1 is missing; another process creates it.
    const store = await backend();
    const cache = readCache(store);
    expect(await cache.get('decisions', 'd1')).toBeUndefined();
    await store.create('decisions', { id: 'd1', status: 'pending' });

    // Act: a commit whose create of d1 fails and whose create of d2 lands.
    const results = await cache.commit([
      { kind: 'create', collection: 'decisions', record: { id: 'd1', status: 'pending' } },
      { kind: 'create', collection: 'decisions', record: { id: 'd2', status: 'pending' } },
    ]);

    // Assess
    expect(results[0]).toMatchObject({ ok: false, error: expect.any(RecordExistsError) });
    expect(await requests(() => cache.get('decisions', 'd2'))).toEqual([]);
    expect(await requests(() => cache.get('decisions', 'd1'))).toEqual(['GetItemCommand']);
    expect(await cache.get('decisions', 'd1')).toMatchObject({ id: 'd1', version: 1 });
    await store.create('decisions', { id: 'd3', status: 'pending' });
    expect((await cache.list('decisions')).map((d) => d.id).sort()).toEqual(['d1', 'd2', 'd3']);
  });

  it("lists the rules once per answer, following the answer's own writes", async () => {
    // Prepare
    const store = await backend();
    await store.create('rules', { id: 'r1', action: 'archive' });
    const cache = readCache(store);
    expect((await cache.list('rules')).map((r) => r.id)).toEqual(['r1']);

    // Act: this store learns one rule and retires another; then lists again.
    await cache.create('rules', { id: 'r2', action: 'skip' });
    await cache.update('rules', { id: 'r1', action: 'archive', superseded_by: 'r2' }, 1);
    const again = await requests(async () => {
      const listed = await cache.list('rules');
      expect(listed.map((r) => [r.id, r.version]).sort()).toEqual([
        ['r1', 2],
        ['r2', 1],
      ]);
    });

    // Assess: no second Query; a lost write makes the next list read the rules again.
    expect(again).toEqual([]);
    await store.update('rules', { id: 'r2', action: 'archive' }, 1);
    await expect(cache.update('rules', { id: 'r2', action: 'skip' }, 1)).rejects.toThrow(
      VersionConflictError,
    );
    expect(await requests(() => cache.list('rules'))).toEqual(['QueryCommand']);
  });

  it("passes a commit's options on (an interim commit of claims stays interim on the JSON store)", async () => {
    const seen: unknown[] = [];
    const spied = {
      commit: async (writes: readonly Write[], options?: CommitOptions) => {
        seen.push(options);
        return writes.map((w) => ({ ok: true as const, record: w.record }));
      },
    } as unknown as Store;
    const write = { kind: 'create', collection: 'outcomes', record: { id: 'o1' } } as const;
    const [landed] = await readCache(spied).commit([write], { interim: true });
    expect(landed).toEqual({ ok: true, record: { id: 'o1' } });
    expect(seen).toEqual([{ interim: true }]);
  });
});

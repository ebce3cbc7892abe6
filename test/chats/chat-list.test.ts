/**
 * "A year of chats costs nothing": the chat list (`GET /api/chats`, the Chat page, `handoff
 * chats`) pages most recently used first from the by-time index, each page reading what it
 * shows plus one, never every chat. A chat's place moves with each use; on JSON files its old
 * marker goes with it, so a page reads no more for a chat used a hundred times. Chats an
 * earlier build wrote to DynamoDB (without the index's keys) are listed in full until
 * `handoff store migrate` writes them again; the step is idempotent. Both stores.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CHAT_TIMES_MIGRATED_ID, migrateChatTimes, pageOfChats } from '../../shared/chats/chat-list.ts';
import { CHAT_SCHEMA_VERSION } from '../../shared/chats/chat-records.ts';
import { createChat, deleteChat, renameChat } from '../../shared/chats/chat-repository.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import { key } from '../../shared/store/dynamodb-items.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { createApp } from '../../shared/web/app.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteClient, dynaliteTables, startDynalite } from '../support/dynalite.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { fullQueries, spyOnStore, watchRequests, type StoreSpy } from '../support/store-spy.ts';
import type { SentRequest } from '../support/dynamodb-requests.ts';

const CHATS = 53;
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

describe.each(['JSON files', 'dynalite'])('the chat list on %s', (backend) => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  let sent: SentRequest[] = [];
  let spy: StoreSpy;
  let fixture: EngineFixture;
  let stateDir: string;
  let cliEnv: Record<string, string>;
  let app: ReturnType<typeof createApp>;
  /** The chats' titles, most recently used first. */
  let expected: string[];

  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-chat-list-'));
    let store: Store;
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      sent = watchRequests(client);
      const table = `handoff-chat-list-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
      cliEnv = {
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        AWS_REGION: 'us-east-1',
        HANDOFF_TABLE: table,
      };
    } else {
      store = new JsonFileStore(stateDir);
      cliEnv = { HANDOFF_STATE_DIR: stateDir };
    }
    spy = spyOnStore(store);
    fixture = await engineFixture({
      messages: [],
      store: spy.store,
      model: () =>
        new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: '' }))),
    });
    // Prepare: a year of chats, the three oldest used again and again since (a hundred uses in all).
    const ids: string[] = [];
    for (let n = 0; n < CHATS; n++) {
      ids.push((await createChat(spy.store, `Chat ${n}`)).id);
      await tick();
    }
    for (let use = 0; use < 99; use++) {
      await renameChat(spy.store, ids[use % 3]!, `Chat ${use % 3}`);
      await tick();
    }
    const doomed = await createChat(spy.store, 'Deleted chat');
    await deleteChat(spy.store, doomed.id);
    expected = [
      'Chat 2',
      'Chat 1',
      'Chat 0',
      ...Array.from({ length: CHATS - 3 }, (_, i) => `Chat ${CHATS - 1 - i}`),
    ];
    // A workspace this build wrote: its first list finds every chat in the index and marks it.
    await pageOfChats(spy.store, { limit: 1 });
    expect(await spy.store.get('settings', CHAT_TIMES_MIGRATED_ID)).toBeDefined();
    app = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_API_KEY: 'chat-list-key' }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
    });
  }, 120_000);

  afterAll(async () => {
    await fixture.cleanup();
    await fs.rm(stateDir, { recursive: true, force: true });
    client?.destroy();
    await dynalite?.stop();
  });

  /** Runs `act` with the spy cleared; what it read in full, and how many chats it read. */
  async function readsOf(act: () => Promise<unknown>): Promise<{ fullReads: string[]; chatsRead: number }> {
    spy.reset();
    sent.splice(0);
    await act();
    return { fullReads: [...spy.fullReads, ...fullQueries(sent)], chatsRead: spy.recordsRead.chats ?? 0 };
  }

  const api = (url: string) => app.request(url, { headers: { Authorization: 'Bearer chat-list-key' } });

  it('the spy notes a full read of the chats (so the checks below can fail)', async () => {
    expect((await readsOf(() => spy.store.list('chats'))).fullReads).toContain('list chats');
  });

  it('on JSON files a chat has one marker in the time index, however often it was used (a page reads no stale ones)', async () => {
    if (backend !== 'JSON files') return; // DynamoDB replaces an item's index keys with the item
    const root = path.join(stateDir, 'by-time', 'chats');
    const markers: string[] = [];
    for (const day of await fs.readdir(root)) markers.push(...(await fs.readdir(path.join(root, day))));
    expect(markers).toHaveLength(CHATS);
  });

  it('GET /api/chats pages most recently used first, each page reading what it shows plus one', async () => {
    const titles: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      let res: Response | undefined;
      const url = `/api/chats?limit=10${cursor ? `&cursor=${cursor}` : ''}`;
      const reads = await readsOf(async () => (res = await api(url)));
      expect(reads.fullReads).toEqual([]);
      expect(reads.chatsRead).toBeLessThanOrEqual(11);
      expect(res!.status).toBe(200);
      const page = (await res!.json()) as Record<string, unknown>[];
      expect(page.length).toBeLessThanOrEqual(10);
      for (const chat of page)
        expect(Object.keys(chat).sort()).toEqual(['chat_id', 'title', 'turns', 'updated_at']);
      titles.push(...page.map((c) => String(c.title)));
      cursor = res!.headers.get('x-next-cursor');
      if (!cursor) break;
    }
    expect(titles).toEqual(expected);
  });

  it('GET /api/chats without a page asks for the first 50, and refuses a cursor it never gave', async () => {
    const res = await api('/api/chats');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { title: string }[]).map((c) => c.title)).toEqual(expected.slice(0, 50));
    expect(res.headers.get('x-next-cursor')).toBeTruthy();
    const bad = await api('/api/chats?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/cursor/);
  });

  it('the Chat page shows the first page and links to the older chats, each page read by key', async () => {
    let first = '';
    const firstReads = await readsOf(async () => (first = await (await app.request('/chat')).text()));
    expect(firstReads.fullReads).toEqual([]);
    expect(firstReads.chatsRead).toBeLessThanOrEqual(51);
    expect(first).toContain('>Chat 2<');
    expect(first).not.toContain('>Chat 3<'); // the oldest left for the next page
    const older = /href="\/chat\?cursor=([^"]+)">Older chats</.exec(first)?.[1];
    expect(older).toBeDefined();
    let next = '';
    const nextReads = await readsOf(
      async () => (next = await (await app.request(`/chat?cursor=${older}`)).text()),
    );
    expect(nextReads.fullReads).toEqual([]);
    for (const title of expected.slice(50)) expect(next).toContain(`>${title}<`);
    expect(next).not.toContain('>Chat 2<');
    expect(next).not.toContain('Older chats');
    expect(next).toContain('Newest chats');
  });

  it('`handoff chats --limit --cursor` pages the same list; --json stays an array of the same objects', async () => {
    // The command's read, in this process (the spy cannot follow a child process).
    const reads = await readsOf(() => pageOfChats(spy.store, { limit: 20 }));
    expect(reads.fullReads).toEqual([]);
    expect(reads.chatsRead).toBeLessThanOrEqual(21);
    // The command itself.
    const titles: string[] = [];
    let args = ['chats', '--limit', '20', '--json'];
    for (let pages = 0; pages < 5; pages++) {
      const out = await runCli(args, cliEnv);
      expect(out.code).toBe(0);
      const page = JSON.parse(out.stdout) as Record<string, unknown>[];
      for (const chat of page)
        expect(Object.keys(chat).sort()).toEqual(['chat_id', 'title', 'turns', 'updated_at']);
      titles.push(...page.map((c) => String(c.title)));
      const more = /^More: handoff chats --limit 20 --cursor (\S+)$/m.exec(out.stderr)?.[1];
      if (!more) break;
      args = ['chats', '--limit', '20', '--cursor', more, '--json'];
    }
    expect(titles).toEqual(expected);
  }, 60_000);
});

/** Chats as an earlier build wrote them to DynamoDB: without the by-time index's keys; their titles, oldest first. */
async function writeLegacyChats(store: DynamoDbStore, count: number): Promise<string[]> {
  const docs = (store as unknown as { client: { send: (command: PutCommand) => Promise<unknown> } }).client;
  const table = (store as unknown as { tableName: string }).tableName;
  const titles: string[] = [];
  for (let n = 0; n < count; n++) {
    const at = new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
    const chat = {
      id: `chat_old${n}`,
      schemaVersion: CHAT_SCHEMA_VERSION,
      title: `Old ${n}`,
      created_at: at,
      updated_at: at,
      turn_count: 0,
      confirm: null,
      draft: null,
      session: {},
      version: 1,
    };
    await docs.send(
      new PutCommand({ TableName: table, Item: { ...chat, ...key('default', 'chats', chat.id) } }),
    );
    titles.push(chat.title);
  }
  return titles;
}

/** Every chat's title, following the cursor; what the store read in full meanwhile. */
async function everyPage(store: Store, limit: number): Promise<{ titles: string[]; fullReads: string[] }> {
  const spy = spyOnStore(store);
  const titles: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await pageOfChats(spy.store, { limit, cursor });
    titles.push(...page.items.map((c) => c.title));
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }
  return { titles, fullReads: spy.fullReads };
}

describe('chats an earlier build wrote to DynamoDB (dynalite)', () => {
  const newStore = dynaliteTables('handoff-chat-old');

  it('are listed in full until `handoff store migrate` writes them again; a second migration writes nothing', async () => {
    // Prepare: five chats an earlier build wrote, two by this build.
    const store = await newStore();
    const old = await writeLegacyChats(store, 5);
    await createChat(store, 'New 0');
    await tick();
    await createChat(store, 'New 1');
    const expected = ['New 1', 'New 0', ...old.reverse()];

    // Before: every chat still listed (the older full read), in the same order; not marked.
    const before = await everyPage(store, 2);
    expect(before.titles).toEqual(expected);
    expect(before.fullReads).toContain('list chats');
    expect(await store.get('settings', CHAT_TIMES_MIGRATED_ID)).toBeUndefined();

    expect(await migrateKeys(store)).toMatchObject({ chats_indexed: 7 });
    expect(await everyPage(store, 2)).toEqual({ titles: expected, fullReads: [] });

    // Again: the marker only, nothing written.
    const spy = spyOnStore(store);
    expect(await migrateChatTimes(spy.store)).toEqual({ already_done: true, chats: 0 });
    expect(spy.fullReads).toEqual([]);
    expect(await migrateKeys(store)).toMatchObject({ already_done: true, chats_indexed: 0 });
  }, 60_000);
});

describe('handoff store migrate on DynamoDB, killed in the middle of the chat-times step', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    dynalite = await startDynalite();
  });
  afterAll(() => dynalite.stop());

  it('lists every chat once meanwhile, finishes on the next run, then reads only its marker', async () => {
    const client = dynaliteClient(dynalite.endpoint);
    try {
      // Prepare: 130 chats an earlier build wrote.
      const table = `handoff-chat-kill-${randomUUID()}`;
      await ensureTable(client, table);
      const store = new DynamoDbStore(createDocumentClient(client), table);
      const newestFirst = (await writeLegacyChats(store, 130)).reverse();
      const env = {
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        AWS_REGION: 'us-east-1',
        HANDOFF_TABLE: table,
      };

      // Act 1: killed after the first batch of 100 was written again, before the rest and the marker.
      const killed = await runCli(['store', 'migrate', '--json'], {
        ...env,
        HANDOFF_CRASH_AT: 'migrate:chat-times-batch',
      });
      expect(killed.signal).toBe('SIGKILL');
      expect(await store.get('settings', CHAT_TIMES_MIGRATED_ID)).toBeUndefined();
      expect((await everyPage(store, 50)).titles).toEqual(newestFirst);

      // Act 2: the run that finishes it; then once more, the marker only.
      const finished = await runCli(['store', 'migrate', '--json'], env);
      expect(finished.code).toBe(0);
      expect((JSON.parse(finished.stdout) as { keys: unknown[] }).keys).toEqual([
        expect.objectContaining({ workspace: 'default', chats_indexed: 130 }),
      ]);
      expect(await everyPage(store, 50)).toEqual({ titles: newestFirst, fullReads: [] });
      const again = await runCli(['store', 'migrate', '--json'], env);
      expect((JSON.parse(again.stdout) as { keys: unknown[] }).keys).toEqual([
        expect.objectContaining({ workspace: 'default', already_done: true, chats_indexed: 0 }),
      ]);
    } finally {
      client.destroy();
    }
  }, 120_000);
});

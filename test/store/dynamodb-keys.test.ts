import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { SHARDS, partitionKeys, prefixRange, shardOf } from '../../shared/store/dynamodb-keys.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';

type Sent = { name: string; input: Record<string, unknown> };

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let client: DynamoDBClient;
beforeAll(async () => {
  dynalite = await startDynalite();
  client = dynaliteClient(dynalite.endpoint);
});
afterAll(async () => {
  client.destroy();
  await dynalite.stop();
});

/** Two workspaces' stores on one fresh table; every request of each recorded. */
async function twoWorkspaces() {
  const table = `handoff-keys-${randomUUID()}`;
  await ensureTable(client, table);
  const open = (workspace: string) => {
    const docs = createDocumentClient(client);
    const sent: Sent[] = [];
    const send = docs.send.bind(docs);
    docs.send = ((command: { input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return send(command as never);
    }) as typeof docs.send;
    return { store: new DynamoDbStore(docs, table, { workspace }), sent };
  };
  const scan = async () =>
    ((await createDocumentClient(client).send(new ScanCommand({ TableName: table }))).Items ?? []) as {
      pk: string;
      sk: string;
      gsi1pk?: string;
      gsi2pk?: string;
    }[];
  return { a: open('team-a'), b: open('team-b'), scan };
}

const at = '2026-12-01T08:00:00.000Z';

describe('DynamoDB key layout by workspace', () => {
  it('keys every record under its workspace, audit entries and outcomes on a shard of their id', async () => {
    const { a, scan } = await twoWorkspaces();
    await a.store.create('runs', { id: 'run-1', workflow_id: 'inbox', status: 'waiting', started_at: at });
    await a.store.create('decisions', { id: 'd-1', status: 'pending', created_at: at });
    await a.store.put('audit', { id: 'run-1:m-1', outcome: 'acted' });
    await a.store.create('outcomes', { id: 'inbox:m-1', status: 'acting', at });
    await a.store.put('settings', { id: 'general' });

    const items = Object.fromEntries((await scan()).map((i) => [i.sk, i]));
    expect(items['run-1']).toMatchObject({
      pk: 'team-a#runs',
      gsi1pk: 'team-a#runs#waiting',
      gsi2pk: 'team-a#runs#inbox',
    });
    expect(items['d-1']).toMatchObject({
      pk: 'team-a#decisions',
      gsi1pk: 'team-a#decisions#pending',
    });
    expect(items['run-1:m-1']?.pk).toBe(`team-a#audit#${shardOf('run-1:m-1')}`);
    expect(items['inbox:m-1']).toMatchObject({
      pk: `team-a#outcomes#${shardOf('inbox:m-1')}`,
      gsi1pk: 'team-a#outcomes#acting',
    });
    expect(items.general?.pk).toBe('team-a#settings');
    expect(await a.store.get('audit', 'run-1:m-1')).toEqual({ id: 'run-1:m-1', outcome: 'acted' });
  });

  it("lists one workspace's pending decisions and a workflow's runs with one Query on that workspace's index key", async () => {
    const { a, b } = await twoWorkspaces();
    for (const { store } of [a, b]) {
      await store.create('decisions', { id: 'same-id', status: 'pending', created_at: at });
      await store.create('runs', { id: 'run-1', workflow_id: 'inbox', status: 'running', started_at: at });
    }
    await b.store.create('decisions', { id: 'only-b', status: 'pending', created_at: at });
    a.sent.length = 0;

    expect((await a.store.listWithStatus('decisions', 'pending')).map((r) => r.id)).toEqual(['same-id']);
    expect((await a.store.listRunsOf('inbox')).map((r) => r.id)).toEqual(['run-1']);
    expect((await a.store.listWithStatus('runs', 'running')).map((r) => r.id)).toEqual(['run-1']);
    expect(a.sent).toEqual([
      {
        name: 'QueryCommand',
        input: expect.objectContaining({
          IndexName: 'pending',
          KeyConditionExpression: '#g = :g',
          ExpressionAttributeNames: { '#g': 'gsi1pk' },
          ExpressionAttributeValues: { ':g': 'team-a#decisions#pending' },
        }),
      },
      {
        name: 'QueryCommand',
        input: expect.objectContaining({
          IndexName: 'runs-by-workflow',
          ExpressionAttributeNames: { '#g': 'gsi2pk' },
          ExpressionAttributeValues: { ':g': 'team-a#runs#inbox' },
        }),
      },
      {
        name: 'QueryCommand',
        input: expect.objectContaining({
          IndexName: 'pending',
          ExpressionAttributeValues: { ':g': 'team-a#runs#running' },
        }),
      },
    ]);
    expect((await b.store.listWithStatus('decisions', 'pending')).map((r) => r.id).sort()).toEqual([
      'only-b',
      'same-id',
    ]);
  });

  it('finds unsettled claims through the status index, not by reading every outcome', async () => {
    const { a } = await twoWorkspaces();
    for (let i = 0; i < 12; i++) await a.store.create('outcomes', { id: `done-${i}`, status: 'acted', at });
    await a.store.create('outcomes', { id: 'held-1', status: 'held', at });
    a.sent.length = 0;
    expect((await a.store.listWithStatus('outcomes', 'held')).map((r) => r.id)).toEqual(['held-1']);
    expect(a.sent).toEqual([
      {
        name: 'QueryCommand',
        input: expect.objectContaining({
          IndexName: 'pending',
          ExpressionAttributeValues: { ':g': 'team-a#outcomes#held' },
        }),
      },
    ]);
  });

  it('lists a sharded collection with one Query per shard of the workspace, never a Scan', async () => {
    const { a, b } = await twoWorkspaces();
    const ids = Array.from({ length: 40 }, (_, i) => `run-1:item-${i}`);
    for (const id of ids) await a.store.put('audit', { id });
    await b.store.put('audit', { id: 'run-9:item-0' });
    a.sent.length = 0;

    expect((await a.store.list('audit')).map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(a.sent.map((s) => s.name)).toEqual(Array<string>(SHARDS).fill('QueryCommand'));
    expect(a.sent.map((s) => s.input.ExpressionAttributeValues)).toEqual(
      partitionKeys('team-a', 'audit').map((pk) => ({ ':pk': pk })),
    );
  });

  it("reads a run's audit by its id prefix with one key-range Query per shard (BETWEEN, not begins_with)", async () => {
    const { a } = await twoWorkspaces();
    const ids = Array.from({ length: 20 }, (_, i) => `aud_0000beef_${i}`);
    for (const id of [...ids, 'aud_0000bee_x', 'aud_0000beef`', 'aud_0000bef0_1'])
      await a.store.put('audit', { id });
    a.sent.length = 0;

    expect((await a.store.listByIdPrefix('audit', 'aud_0000beef_')).map((r) => r.id).sort()).toEqual(
      [...ids].sort(),
    );
    const page = await a.store.listPage('audit', 'aud_0000beef_', { limit: 5, descending: true });
    expect(page.items.map((r) => r.id)).toEqual([...ids].sort().reverse().slice(0, 5));
    // DynamoDB Local answers begins_with by reading the whole partition (docs/history.md).
    expect(a.sent).toHaveLength(2 * SHARDS);
    for (const { name, input } of a.sent) {
      expect(name).toBe('QueryCommand');
      expect(input.KeyConditionExpression).toBe('#pk = :pk AND #sk BETWEEN :from AND :after');
      expect(input.ExpressionAttributeValues).toMatchObject({
        ':from': 'aud_0000beef_',
        ':after': 'aud_0000beef`',
      });
    }
  });

  it('isolates the same id in two workspaces: create, update, delete and commit touch only their own', async () => {
    const { a, b } = await twoWorkspaces();
    await a.store.create('workflows', { id: 'inbox', owner: 'a' });
    await b.store.create('workflows', { id: 'inbox', owner: 'b' });
    await b.store.update('workflows', { id: 'inbox', owner: 'b2' }, 1);
    await a.store.commit([{ kind: 'create', collection: 'outcomes', record: { id: 'inbox:m-1' } }]);
    expect(await b.store.get('outcomes', 'inbox:m-1')).toBeUndefined();
    await a.store.delete('workflows', 'inbox');
    expect(await a.store.get('workflows', 'inbox')).toBeUndefined();
    expect(await b.store.get('workflows', 'inbox')).toEqual({ id: 'inbox', owner: 'b2', version: 2 });
    expect(await b.store.getMany('outcomes', ['inbox:m-1'])).toEqual([undefined]);
  });

  it("reads an id prefix as a sort-key range ending at the prefix's next string", () => {
    expect(prefixRange('aud_1a2b3c4d_')).toEqual({ from: 'aud_1a2b3c4d_', after: 'aud_1a2b3c4d`' });
    expect(prefixRange('run_b1.')).toEqual({ from: 'run_b1.', after: 'run_b1/' });
    expect(prefixRange('x✓')).toEqual({ from: 'x✓', after: 'x✔' });
    expect(prefixRange('x\u{1F600}')).toEqual({ from: 'x\u{1F600}', after: 'x\u{1F601}' });
    expect(prefixRange('x\uD7FF')).toEqual({ from: 'x\uD7FF', after: 'x\uE000' }); // over the surrogates
    expect(prefixRange('ab\u{10FFFF}')).toEqual({ from: 'ab\u{10FFFF}', after: 'ac' });
    expect(prefixRange('\u{10FFFF}')).toBeNull();
    expect(prefixRange('')).toBeNull();
  });

  it('spreads ids evenly over the shards', () => {
    const counts = Array<number>(SHARDS).fill(0);
    for (let i = 0; i < 8_000; i++) counts[shardOf(`run-${i % 40}:<msg-${i}@example.com>`)]! += 1;
    const mean = 8_000 / SHARDS;
    for (const count of counts) {
      expect(count).toBeGreaterThan(mean * 0.9);
      expect(count).toBeLessThan(mean * 1.1);
    }
  });

  it('refuses a workspace name that could break the key, saying what is allowed', () => {
    const docs = createDocumentClient(client);
    for (const bad of ['', 'a#b', 'with space', '-x', 'x'.repeat(65)]) {
      expect(() => new DynamoDbStore(docs, 't', { workspace: bad })).toThrow(InvalidInputError);
    }
    expect(() => new DynamoDbStore(docs, 't', { workspace: 'a#b' })).toThrow(
      /^Workspace 'a#b' is not a valid name: use 1-64 letters, digits/,
    );
    expect(new DynamoDbStore(docs, 't').workspace).toBe('default');
    const env = loadEnv({ USE_DYNAMODB: 'true', DYNAMODB_ENDPOINT: dynalite.endpoint });
    expect((openStore(env, 'team-x') as DynamoDbStore).workspace).toBe('team-x');
    expect(() => openStore(env, 'team x')).toThrow(InvalidInputError);
    expect(new DynamoDbStore(docs, 't', { workspace: '_platform' }).workspace).toBe('_platform');
  });
});

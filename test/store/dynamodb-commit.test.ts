import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { checksHeld, type Write } from '../../shared/store/store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';

/** A store on a fresh table whose every request is counted by command name. */
async function countedStore(
  client: DynamoDBClient,
  workspace?: string,
  table = `handoff-commit-${randomUUID()}`,
) {
  await ensureTable(client, table);
  const docs = createDocumentClient(client);
  const sent: string[] = [];
  const inputs: Record<string, unknown>[] = [];
  const send = docs.send.bind(docs);
  docs.send = ((command: { input: Record<string, unknown> }) => {
    sent.push(command.constructor.name);
    inputs.push(command.input);
    return send(command as never);
  }) as typeof docs.send;
  return { store: new DynamoDbStore(docs, table, workspace ? { workspace } : {}), sent, inputs, table };
}

const page = (n: number): Write[] => [
  ...Array.from({ length: n }, (_, i): Write => ({
    kind: 'create',
    collection: 'outcomes',
    record: { id: `o${i}` },
  })),
  ...Array.from({ length: n }, (_, i): Write => ({
    kind: 'put',
    collection: 'audit',
    record: { id: `a${i}` },
  })),
];

describe('DynamoDbStore.commit on an endpoint without transactions (dynalite)', () => {
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

  it('reads 150 records in two BatchGetItem requests, in the order asked', async () => {
    const { store, sent } = await countedStore(client);
    const ids = Array.from({ length: 150 }, (_, i) => `r${i}`);
    await store.commit(ids.map((id): Write => ({ kind: 'put', collection: 'runs', record: { id } })));
    sent.length = 0;
    const records = await store.getMany('runs', [...ids].reverse());
    expect(records.map((r) => r?.id)).toEqual([...ids].reverse());
    expect(sent).toEqual(['BatchGetCommand', 'BatchGetCommand']);
  });

  it('refuses a commit holding a reserved field name in one line, and writes none of it', async () => {
    const { store, sent } = await countedStore(client);
    const writes: Write[] = [
      { kind: 'create', collection: 'runs', record: { id: 'fine' } },
      { kind: 'put', collection: 'runs', record: { id: 'bad', gsi1pk: 'mine' } },
    ];
    await expect(store.commit(writes)).rejects.toThrow(/^runs\/bad: .*reserved field names/);
    expect(sent).toEqual([]);
    expect(await store.get('runs', 'fine')).toBeUndefined();
  });

  it('asks for a transaction once, then writes runs of puts 25 to a request and each create on its own', async () => {
    const { store, sent } = await countedStore(client);
    expect((await store.commit(page(30))).every((r) => r.ok)).toBe(true);
    await store.commit([{ kind: 'put', collection: 'usage', record: { id: 'u1' } }]);
    const counts = (names: string[]) =>
      Object.fromEntries([...new Set(names)].map((n) => [n, names.filter((x) => x === n).length]));
    expect(counts(sent)).toEqual({ TransactWriteCommand: 1, PutCommand: 30, BatchWriteCommand: 3 });
    expect(await store.get('audit', 'a29')).toEqual({ id: 'a29' });
  });

  it('proves no check without transactions: the writes land and no check result follows them', async () => {
    const { store } = await countedStore(client);
    await store.create('decisions', { id: 'other' });
    const writes: Write[] = [{ kind: 'create', collection: 'decisions', record: { id: 'mine' } }];
    const checks = [{ collection: 'decisions' as const, id: 'other', expectedVersion: 1 }];
    const results = await store.commit(writes, { checks });
    expect(results.map((r) => r.ok)).toEqual([true]);
    expect(checksHeld(results, writes.length, checks.length)).toBe(false);
  });
});

describe('DynamoDbStore.commit on DynamoDB Local', () => {
  let local: Awaited<ReturnType<typeof startDynamoDbLocal>>;
  let client: DynamoDBClient;
  beforeAll(async () => {
    local = await startDynamoDbLocal();
    client = dynaliteClient(local.endpoint);
  });
  afterAll(async () => {
    client.destroy();
    await local.stop();
  });

  it('writes 60 claims and their 60 audit entries as one transaction per 100 writes', async () => {
    const { store, sent } = await countedStore(client);
    const results = await store.commit(page(60));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sent).toEqual(['TransactWriteCommand', 'TransactWriteCommand']);
    expect(await store.get('audit', 'a59')).toEqual({ id: 'a59' });
  });

  it('sends a cancelled transaction once more without the write whose condition failed', async () => {
    const { store, sent } = await countedStore(client);
    await store.create('outcomes', { id: 'o3', mine: false });
    sent.length = 0;
    const results = await store.commit(page(10));
    expect(results.map((r) => r.ok)).toEqual(page(10).map((_, i) => i !== 3));
    expect(sent).toEqual(['TransactWriteCommand', 'TransactWriteCommand']);
    expect(await store.get('outcomes', 'o3')).toEqual({ id: 'o3', mine: false, version: 1 });
    expect(await store.get('outcomes', 'o4')).toEqual({ id: 'o4', version: 1 });
  });

  it("proves a check in the writes' own transaction: one still at its version holds, a moved one fails and the writes land", async () => {
    // Prepare: two records another writer may move; one of them moves.
    const { store, sent, inputs } = await countedStore(client);
    await store.create('decisions', { id: 'still', status: 'pending' });
    await store.create('decisions', { id: 'moved', status: 'pending' });
    await store.update('decisions', { id: 'moved', status: 'answered' }, 1);
    const answer = (id: string): Write[] => [
      { kind: 'create', collection: 'decisions', record: { id } },
      { kind: 'put', collection: 'audit', record: { id: `audit-${id}` } },
    ];
    const check = (id: string) => [{ collection: 'decisions' as const, id, expectedVersion: 1 }];
    sent.length = 0;
    inputs.length = 0;

    // Act: one commit checks the unmoved record, another the moved one.
    const held = await store.commit(answer('a1'), { checks: check('still') });
    const lost = await store.commit(answer('a2'), { checks: check('moved') });

    // Assess: the first held, in one transaction naming the check; the second's check failed,
    // its writes were sent again without it and landed.
    expect(held.map((r) => r.ok)).toEqual([true, true, true]);
    expect(checksHeld(held, 2, 1)).toBe(true);
    expect(lost.map((r) => r.ok)).toEqual([true, true, false]);
    expect(checksHeld(lost, 2, 1)).toBe(false);
    expect(sent).toEqual(['TransactWriteCommand', 'TransactWriteCommand', 'TransactWriteCommand']);
    const first = (inputs[0] as { TransactItems: Record<string, { Key?: { sk: string } }>[] }).TransactItems;
    expect(first.map((item) => Object.keys(item)[0])).toEqual(['Put', 'Put', 'ConditionCheck']);
    expect(first[2]!.ConditionCheck!.Key!.sk).toBe('still');
    expect(await store.get('decisions', 'a2')).toEqual({ id: 'a2', version: 1 });
    expect(await store.get('decisions', 'moved')).toMatchObject({ status: 'answered', version: 2 });
  });

  it("keys a workspace's transaction under that workspace: a neighbour's claim on the same ids cancels nothing", async () => {
    const neighbour = await countedStore(client, 'team-a');
    await neighbour.store.commit(page(10));
    const { store, sent, inputs } = await countedStore(client, 'team-b', neighbour.table);
    const results = await store.commit(page(10));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sent).toEqual(['TransactWriteCommand']);
    const items = (inputs[0] as { TransactItems: { Put: { Item: { pk: string; sk: string } } }[] })
      .TransactItems;
    expect(items).toHaveLength(20);
    for (const { Put } of items) expect(Put.Item.pk).toMatch(/^team-b#(outcomes|audit)#[0-7]$/);
    expect(await store.get('outcomes', 'o3')).toEqual({ id: 'o3', version: 1 });
    expect((await neighbour.store.list('outcomes')).length).toBe(10);
  });
});

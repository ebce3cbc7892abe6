import { randomUUID } from 'node:crypto';
import fs, { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { migrateTable } from '../../shared/store/dynamodb-migrate.ts';
import { fromItem } from '../../shared/store/dynamodb-items.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import type { Collection } from '../../shared/store/store.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';

type Item = Record<string, unknown> & { pk: string; sk: string };

// Scanned from a dynalite table after a real run (inbox-triage over 12 messages, paused on 3
// questions) by the code of commit 4e36b9f, the layout before workspaces: pk = collection.
const LEGACY = path.join(import.meta.dirname, 'fixtures', 'legacy-table-4e36b9f.json');

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let client: DynamoDBClient;
let legacy: Item[];
beforeAll(async () => {
  dynalite = await startDynalite();
  client = dynaliteClient(dynalite.endpoint);
  legacy = JSON.parse(await readFile(LEGACY, 'utf8')) as Item[];
});
afterAll(async () => {
  client.destroy();
  await dynalite.stop();
});

/** A fresh table holding the legacy items exactly as today's code wrote them. */
async function legacyTable(): Promise<{ table: string; docs: DynamoDBDocumentClient }> {
  const table = `handoff-legacy-${randomUUID()}`;
  await ensureTable(client, table);
  const docs = createDocumentClient(client);
  for (let i = 0; i < legacy.length; i += 25) {
    const requests = legacy.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await docs.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
  }
  return { table, docs };
}

async function scan(docs: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await docs.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as Item[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => `${a.pk} ${a.sk}`.localeCompare(`${b.pk} ${b.sk}`));
}

/** A document client whose requests are recorded; `failOn` throws instead of sending that one. */
function recorded(failOn?: { command: string; nth: number }) {
  const docs = createDocumentClient(client);
  const sent: string[] = [];
  const send = docs.send.bind(docs);
  docs.send = ((command: object) => {
    const name = command.constructor.name;
    sent.push(name);
    if (failOn?.command === name && sent.filter((n) => n === name).length === failOn.nth)
      return Promise.reject(new Error('connection lost'));
    return send(command as never);
  }) as typeof docs.send;
  return { docs, sent };
}

/** Every legacy record read back through a store of workspace `default`. */
async function expectEveryRecordIn(store: DynamoDbStore): Promise<void> {
  for (const item of legacy) expect(await store.get(item.pk as Collection, item.sk)).toEqual(fromItem(item));
}

describe('handoff store migrate (DynamoDB)', () => {
  it('moves a table written by today’s code into workspace default, nothing lost, indexes working', async () => {
    const { table, docs } = await legacyTable();
    expect(legacy.length).toBeGreaterThan(30);

    const report = await migrateTable(docs, table);

    expect(report).toEqual({
      table,
      workspace: 'default',
      found: legacy.length,
      moved: legacy.length,
      already_moved: 0,
      skipped: 0,
    });
    const after = await scan(docs, table);
    expect(after).toHaveLength(legacy.length);
    for (const item of after) expect(item.pk).toMatch(/^default#/);
    const store = new DynamoDbStore(docs, table);
    await expectEveryRecordIn(store);
    // The run paused on three questions: the product finds them through the workspace's index.
    const pending = await listPending(store);
    expect(pending.map((d) => d.id).sort()).toEqual(
      legacy
        .filter((i) => i.gsi1pk === 'decisions#pending')
        .map((i) => i.sk)
        .sort(),
    );
    const run = legacy.find((i) => i.pk === 'runs')!;
    expect((await getRun(store, run.sk))?.status).toBe('waiting');
    expect((await store.listRunsOf('inbox-triage')).map((r) => r.id)).toEqual([run.sk]);
    expect((await store.list('audit')).length).toBe(legacy.filter((i) => i.pk === 'audit').length);
  });

  it('interrupted midway, finishes on the next run without overwriting what changed since; a third run changes nothing', async () => {
    const { table } = await legacyTable();
    const broken = recorded({ command: 'DeleteCommand', nth: 20 });
    await expect(migrateTable(broken.docs, table)).rejects.toThrow('connection lost');
    const { docs, sent } = recorded();
    const halfway = await scan(docs, table);
    const left = halfway.filter((i) => !i.pk.includes('#'));
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(legacy.length);

    // The record whose copy landed but whose old item was not deleted is changed meanwhile.
    const store = new DynamoDbStore(docs, table);
    const both = left.filter((old) => halfway.some((i) => i.sk === old.sk && i.pk.startsWith('default#')));
    expect(both.length).toBeGreaterThan(0);
    const changed = both[0]!;
    const current = (await store.get(changed.pk as Collection, changed.sk))!;
    await store.put(changed.pk as Collection, { ...current, note: 'changed after the copy' });

    const second = await migrateTable(docs, table);
    expect(second.found).toBe(left.length);
    expect(second.moved + second.already_moved).toBe(left.length);
    expect(second.already_moved).toBe(both.length);
    expect(await store.get(changed.pk as Collection, changed.sk)).toEqual({
      ...current,
      note: 'changed after the copy',
    });
    const done = await scan(docs, table);
    expect(done).toHaveLength(legacy.length);
    for (const item of legacy.filter((i) => i.sk !== changed.sk))
      expect(await store.get(item.pk as Collection, item.sk)).toEqual(fromItem(item));

    sent.length = 0;
    expect(await migrateTable(docs, table)).toMatchObject({ found: 0, moved: 0, already_moved: 0 });
    expect(sent).toEqual(['ScanCommand']);
    expect(await scan(docs, table)).toEqual(done);
  });

  it('moves the platform collections into _platform and leaves a key it does not know where it is', async () => {
    const table = `handoff-legacy-${randomUUID()}`;
    await ensureTable(client, table);
    const docs = createDocumentClient(client);
    const items = [
      { pk: 'api_keys', sk: 'key-1', id: 'key-1', workspace: 'default', version: 1 },
      { pk: 'workspaces', sk: 'default', id: 'default', version: 1 },
      { pk: 'not-a-collection', sk: 'x', id: 'x' },
    ];
    await docs.send(
      new BatchWriteCommand({ RequestItems: { [table]: items.map((Item) => ({ PutRequest: { Item } })) } }),
    );

    expect(await migrateTable(docs, table)).toMatchObject({ found: 3, moved: 2, skipped: 1 });
    const platform = new DynamoDbStore(docs, table, { workspace: '_platform' });
    expect(await platform.get('api_keys', 'key-1')).toEqual({
      id: 'key-1',
      workspace: 'default',
      version: 1,
    });
    expect(await platform.get('workspaces', 'default')).toEqual({ id: 'default', version: 1 });
    expect(await new DynamoDbStore(docs, table).get('api_keys', 'key-1')).toBeUndefined();
    expect((await scan(docs, table)).map((i) => i.pk).sort()).toEqual([
      '_platform#api_keys',
      '_platform#workspaces',
      'not-a-collection',
    ]);
  });

  it('runs from the command line: counts as JSON, then a plain line saying there is nothing left', async () => {
    const { table } = await legacyTable();
    const env = {
      USE_DYNAMODB: 'true',
      DYNAMODB_ENDPOINT: dynalite.endpoint,
      AWS_REGION: 'us-east-1',
      HANDOFF_TABLE: table,
    };
    const first = await runCli(['store', 'migrate', '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      store: 'dynamodb',
      table,
      workspace: 'default',
      found: legacy.length,
      moved: legacy.length,
      already_moved: 0,
      skipped: 0,
      // Then the keys step, in every workspace (test/store/key-migration.test.ts tests it).
      keys: expect.arrayContaining([expect.objectContaining({ workspace: 'default', already_done: false })]),
    });
    const again = await runCli(['store', 'migrate'], env);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(
      `Nothing to migrate: table ${table} is already in the workspace layout.`,
    );

    const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-migrate-json-'));
    const json = await runCli(['store', 'migrate', '--json'], { HANDOFF_STATE_DIR: stateDir });
    await fs.rm(stateDir, { recursive: true, force: true });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      store: 'json',
      found: 0,
      moved: 0,
      already_moved: 0,
      skipped: 0,
      keys: [expect.objectContaining({ workspace: 'default', already_done: false, runs: 0 })],
    });

    const missing = await runCli(['store', 'migrate'], { ...env, HANDOFF_TABLE: 'no-such-table' });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    // (Node 20 adds the AWS SDK's version warning on stderr; the CLI's own output is one line.)
    expect(missing.stderr.split('\n').filter((l) => l.startsWith('handoff'))).toEqual([
      `handoff: DynamoDB table no-such-table does not exist (${dynalite.endpoint}); check HANDOFF_TABLE, or create it with \`handoff store init\`.`,
    ]);
  });
});

/**
 * The workspace's artifacts list reads the by-time index once every artifact is in it: on
 * DynamoDB, artifacts an earlier build wrote lack the index's keys, so the list reads them all
 * (as before) until `handoff store migrate` writes them again and marks the step; a workspace
 * this build wrote (and every JSON file store, which indexes its own files) is marked on its
 * first list. The step is idempotent: a second one reads only its marker.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pageOfArtifacts } from '../../shared/artifacts/artifact-list.ts';
import {
  ARTIFACT_TIMES_MIGRATED_ID,
  artifactTimesIndexed,
  migrateArtifactTimes,
} from '../../shared/artifacts/artifact-times.ts';
import { artifactOf, saveArtifact, type Artifact } from '../../shared/artifacts/artifacts.ts';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import { key } from '../../shared/store/dynamodb-items.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteClient, dynaliteTables, startDynalite } from '../support/dynalite.ts';
import { spyOnStore } from '../support/store-spy.ts';

const artifact = (runId: string, n: number): Artifact =>
  artifactOf(
    { kind: 'ticket', title: `Ticket ${n}`, contentType: 'text/plain; charset=utf-8', body: `${n}` },
    { workflowId: 'inbox', runId, itemId: `<t${n}@x>`, decisionId: null },
    new Date(Date.UTC(2026, 10, 1, 8, n)),
  );

/** Every artifact, following the cursor two at a time; what the store read in full meanwhile. */
async function everyPage(store: Store, limit = 2): Promise<{ titles: string[]; fullReads: string[] }> {
  const spy = spyOnStore(store);
  const titles: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await pageOfArtifacts(spy.store, { limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    titles.push(...page.items.map((a) => a.title));
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }
  return { titles, fullReads: spy.fullReads };
}

const NEWEST_FIRST = ['Ticket 5', 'Ticket 4', 'Ticket 3', 'Ticket 2', 'Ticket 1', 'Ticket 0'];

describe('on DynamoDB (dynalite)', () => {
  const newStore = dynaliteTables('handoff-artifact-times');

  it("lists an earlier build's artifacts in full until the migration, then a page at a time from the index", async () => {
    const store = await newStore();
    // Prepare: three written by an earlier build (no by-time keys), three by this one.
    const docs = (store as unknown as { client: { send: (command: PutCommand) => Promise<unknown> } }).client;
    const table = (store as unknown as { tableName: string }).tableName;
    for (let n = 0; n < 3; n++) {
      const a = artifact('run_old', n);
      await docs.send(
        new PutCommand({ TableName: table, Item: { ...a, ...key('default', 'artifacts', a.id) } }),
      );
    }
    for (let n = 3; n < 6; n++) await saveArtifact(store, artifact('run_new', n));

    // Before the migration: every artifact still listed (the older full read), none marked.
    const before = await everyPage(store);
    expect(before.titles).toEqual(NEWEST_FIRST);
    expect(before.fullReads).toContain('list artifacts');
    expect(await artifactTimesIndexed(store)).toBe(false);

    const report = await migrateKeys(store);
    expect(report).toMatchObject({ artifacts_indexed: 6 });

    const after = await everyPage(store);
    expect(after.titles).toEqual(NEWEST_FIRST);
    expect(after.fullReads).toEqual([]);

    // Again: only the marker is read, nothing is written again.
    const spy = spyOnStore(store);
    expect(await migrateArtifactTimes(spy.store)).toEqual({ already_done: true, artifacts: 0 });
    expect(spy.fullReads).toEqual([]);
  });

  it('a workspace this build wrote is marked on its first list, then read by key', async () => {
    const store: DynamoDbStore = await newStore();
    for (let n = 0; n < 6; n++) await saveArtifact(store, artifact('run_new', n));
    expect(await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)).toBeUndefined();
    const first = await everyPage(store);
    expect(first.titles).toEqual(NEWEST_FIRST);
    expect(await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)).toBeDefined();
    const next = await everyPage(store);
    expect(next).toEqual({ titles: NEWEST_FIRST, fullReads: [] });
  });
});

describe('large artifacts on DynamoDB (dynalite)', () => {
  const newStore = dynaliteTables('handoff-artifact-large');

  it('a page of artifacts of 60 KB each is whole: a Query cut at 1 MB is followed to the page size', async () => {
    const store = await newStore();
    const big = 'x'.repeat(60 * 1024);
    for (let n = 0; n < 40; n++)
      await saveArtifact(
        store,
        artifactOf(
          { kind: 'report', title: `Report ${n}`, contentType: 'text/plain; charset=utf-8', body: big },
          { workflowId: 'inbox', runId: `run_big${n}`, itemId: null, decisionId: null },
          new Date(Date.UTC(2026, 10, 1, 8, n)),
        ),
      );
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await pageOfArtifacts(store, { limit: 30, cursor });
      seen.push(...page.items.map((a) => a.title));
      if (pages === 0) expect(page.items).toHaveLength(30); // 1.8 MB: more than one Query page
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, n) => `Report ${39 - n}`));
    // The first list found every artifact in the index (2.4 MB of it) and marked the workspace.
    expect(await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)).toBeDefined();
    const again = await everyPage(store, 30);
    expect(again).toEqual({ titles: seen, fullReads: [] });
  });
});

describe('on JSON files', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });

  it('indexes its own files: the first list marks the workspace, every later page reads by key', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-artifact-times-'));
    dirs.push(dir);
    const store = new JsonFileStore(dir);
    for (let n = 0; n < 6; n++) await saveArtifact(store, artifact(n < 3 ? 'run_old' : 'run_new', n));
    expect((await everyPage(store)).titles).toEqual(NEWEST_FIRST);
    // A new process over the same files.
    expect(await everyPage(new JsonFileStore(dir))).toEqual({ titles: NEWEST_FIRST, fullReads: [] });
  });
});

describe('handoff store migrate on DynamoDB, killed in the middle of the artifact-times step', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    dynalite = await startDynalite();
  });
  afterAll(() => dynalite.stop());

  it('lists every artifact once meanwhile, finishes on the next run, then reads only its marker', async () => {
    const client = dynaliteClient(dynalite.endpoint);
    try {
      // Prepare: 250 artifacts an earlier build wrote (no by-time keys).
      const table = `handoff-artifact-kill-${randomUUID()}`;
      await ensureTable(client, table);
      const docs = createDocumentClient(client);
      const store = new DynamoDbStore(docs, table);
      const legacy = Array.from({ length: 250 }, (_, n) =>
        artifactOf(
          { kind: 'ticket', title: `Ticket ${n}`, contentType: 'text/plain; charset=utf-8', body: `${n}` },
          { workflowId: 'inbox', runId: `run_old${n % 7}`, itemId: `<t${n}@x>`, decisionId: null },
          new Date(Date.UTC(2026, 9, 1) + n * 60_000),
        ),
      );
      for (const a of legacy)
        await docs.send(
          new PutCommand({ TableName: table, Item: { ...a, ...key('default', 'artifacts', a.id) } }),
        );
      const env = {
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        AWS_REGION: 'us-east-1',
        HANDOFF_TABLE: table,
      };
      const newestFirst = legacy.map((a) => a.title).reverse();

      // Act 1: killed after the first batch of 100 was written again, before the rest and the marker.
      const killed = await runCli(['store', 'migrate', '--json'], {
        ...env,
        HANDOFF_CRASH_AT: 'migrate:artifact-times-batch',
      });
      expect(killed.signal).toBe('SIGKILL');
      expect(await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)).toBeUndefined();
      // Assess: the list still shows every artifact once, newest first (the older full read).
      expect((await everyPage(store, 50)).titles).toEqual(newestFirst);

      // Act 2: the run that finishes it.
      const finished = await runCli(['store', 'migrate', '--json'], env);
      expect(finished.code).toBe(0);
      expect((JSON.parse(finished.stdout) as { keys: unknown[] }).keys).toEqual([
        expect.objectContaining({ workspace: 'default', artifacts_indexed: 250 }),
      ]);
      expect(await everyPage(store, 50)).toEqual({ titles: newestFirst, fullReads: [] });

      // Act 3: once more: the marker only.
      const again = await runCli(['store', 'migrate', '--json'], env);
      expect((JSON.parse(again.stdout) as { keys: unknown[] }).keys).toEqual([
        expect.objectContaining({ workspace: 'default', already_done: true, artifacts_indexed: 0 }),
      ]);
    } finally {
      client.destroy();
    }
  }, 120_000);
});

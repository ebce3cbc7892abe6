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
import { afterAll, describe, expect, it } from '@jest/globals';
import { pageOfArtifacts } from '../../shared/artifacts/artifact-list.ts';
import {
  ARTIFACT_TIMES_MIGRATED_ID,
  artifactTimesIndexed,
  migrateArtifactTimes,
} from '../../shared/artifacts/artifact-times.ts';
import { artifactOf, saveArtifact, type Artifact } from '../../shared/artifacts/artifacts.ts';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import { key } from '../../shared/store/dynamodb-items.ts';
import type { DynamoDbStore } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { spyOnStore } from '../support/store-spy.ts';

const artifact = (runId: string, n: number): Artifact =>
  artifactOf(
    { kind: 'ticket', title: `Ticket ${n}`, contentType: 'text/plain; charset=utf-8', body: `${n}` },
    { workflowId: 'inbox', runId, itemId: `<t${n}@x>`, decisionId: null },
    new Date(Date.UTC(2026, 10, 1, 8, n)),
  );

/** Every artifact, following the cursor two at a time; what the store read in full meanwhile. */
async function everyPage(store: Store): Promise<{ titles: string[]; fullReads: string[] }> {
  const spy = spyOnStore(store);
  const titles: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await pageOfArtifacts(spy.store, { limit: 2, cursor });
    expect(page.items.length).toBeLessThanOrEqual(2);
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

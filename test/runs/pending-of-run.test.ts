/**
 * A run's waiting questions: where the status index may lag (DynamoDB), one keyed read under
 * the run's id prefix, and the index only for a run asked before decision ids carried their
 * run (or that the keyed read misses); where it is exact (JSON files), the index alone.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { pendingOfRun, runDecisionPrefix } from '../../shared/runs/decision-repository.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Collection, JsonRecord, Store } from '../../shared/store/store.ts';

let dir: string | undefined;
afterEach(() => (dir ? fs.rm(dir, { recursive: true, force: true }) : undefined));

const decision = (id: string, run_id: string, status = 'pending', created_at = '2026-12-01T08:00:00Z') => ({
  id,
  run_id,
  interrupt_id: 'int_1',
  workflow_id: 'inbox',
  item_id: id,
  sender: 'a@b.example',
  subject: 's',
  suggested_action: 'archive',
  confidence: 0.3,
  reasoning: 'r',
  reason: 'low_confidence',
  options: ['archive'],
  status,
  answer: null,
  created_at,
  expires_at: '2026-12-04T08:00:00Z',
});

/** The store, with the status-index reads it is asked for, and the records they return, counted. */
function counted(store: Store): { store: Store; indexReads: () => number; recordsRead: () => number } {
  let reads = 0;
  let records = 0;
  const listWithStatus = store.listWithStatus.bind(store);
  store.listWithStatus = async (
    collection: Collection,
    status: string,
    prefix?: string,
  ): Promise<JsonRecord[]> => {
    reads += 1;
    const read = await listWithStatus(collection, status, prefix);
    records += read.length;
    return read;
  };
  return { store, indexReads: () => reads, recordsRead: () => records };
}

/**
 * run_new asked under its id prefix (b, then a, both waiting; c answered); run_old asked
 * before decision ids carried their run. Returns run_new's prefix.
 */
async function askTwoRuns(store: Store): Promise<string> {
  const prefix = runDecisionPrefix('run_new');
  await store.create('decisions', decision(`${prefix}b`, 'run_new', 'pending', '2026-12-01T08:00:02Z'));
  await store.create('decisions', decision(`${prefix}a`, 'run_new', 'pending', '2026-12-01T08:00:01Z'));
  await store.create('decisions', decision(`${prefix}c`, 'run_new', 'answered'));
  await store.create('decisions', decision('dec_0123456789abcdef', 'run_old'));
  return prefix;
}

it("reads a run's questions by its id prefix, and an older run's from the status index", async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-pending-of-run-'));
  // As a store whose status index may lag a write (DynamoDB's) is read.
  const { store, indexReads } = counted(Object.assign(new JsonFileStore(dir), { exactStatusIndex: false }));
  const prefix = await askTwoRuns(store);

  expect((await pendingOfRun(store, 'run_new')).map((d) => d.id)).toEqual([`${prefix}a`, `${prefix}b`]);
  expect(indexReads()).toBe(0);
  expect((await pendingOfRun(store, 'run_old')).map((d) => d.id)).toEqual(['dec_0123456789abcdef']);
  expect(indexReads()).toBe(1);
  expect((await pendingOfRun(store, 'run_old', 'dec_0123456789abcdef')).map((d) => d.id)).toEqual([
    'dec_0123456789abcdef',
  ]);
  expect(await pendingOfRun(store, 'run_new', `${prefix}a`)).toHaveLength(2);
  expect(indexReads()).toBe(2);
});

it("reads a run's questions from an exact status index alone, never listing the folder", async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-pending-of-run-'));
  const json = new JsonFileStore(dir);
  json.listByIdPrefix = () => Promise.reject(new Error('listed the decisions folder'));
  const { store, indexReads } = counted(json);
  const prefix = await askTwoRuns(store);

  expect((await pendingOfRun(store, 'run_new')).map((d) => d.id)).toEqual([`${prefix}a`, `${prefix}b`]);
  expect((await pendingOfRun(store, 'run_old', 'dec_0123456789abcdef')).map((d) => d.id)).toEqual([
    'dec_0123456789abcdef',
  ]);
  expect(indexReads()).toBe(2);
});

it("reads only the run's own markers of an exact status index, however many other runs wait", async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-pending-of-run-'));
  const { store, recordsRead } = counted(new JsonFileStore(dir));
  const prefix = await askTwoRuns(store);
  for (let i = 0; i < 60; i++) {
    const other = `run_other_${i % 3}`;
    await store.create(
      'decisions',
      decision(`${runDecisionPrefix(other)}${String(i).padStart(12, '0')}`, other),
    );
  }
  // Each answer of a batch reads what still waits in its run: its two, never the other 60.
  expect(await pendingOfRun(store, 'run_new', `${prefix}a`)).toHaveLength(2);
  expect(recordsRead()).toBe(2);
});

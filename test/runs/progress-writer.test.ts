/**
 * A running run's counts reach its record as it goes: every 50 changes or half a second,
 * never once stopped (the run's own lifecycle write takes over), never onto a run that no
 * longer runs.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { EMPTY_COUNTS, type RunCounts } from '../../shared/records/runs.ts';
import { createRun } from '../../shared/runs/lifecycle.ts';
import {
  PROGRESS_EVERY_CHANGES,
  PROGRESS_EVERY_MS,
  progressWriter,
} from '../../shared/runs/progress-writer.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

let dir: string;
let store: JsonFileStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-progress-'));
  store = new JsonFileStore(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const manual = { kind: 'manual', detail: null } as const;
const acted = (n: number): RunCounts => ({ ...EMPTY_COUNTS, acted: n, confident: n });

describe("a running run's progress", () => {
  it('is written every 50 changes, and not before', async () => {
    const run = await createRun(store, 'wf', manual);
    const writer = progressWriter(store, run.id, () => 0); // the clock never moves: only changes count
    for (let n = 1; n < PROGRESS_EVERY_CHANGES; n++) writer.saw(acted(n));
    await writer.stop();
    expect((await getRun(store, run.id)).counts.acted).toBe(0);

    const next = progressWriter(store, run.id, () => 0);
    for (let n = 1; n <= PROGRESS_EVERY_CHANGES; n++) next.saw(acted(n));
    await next.stop();
    const read = await getRun(store, run.id);
    expect(read.counts.acted).toBe(PROGRESS_EVERY_CHANGES);
    expect(read.status).toBe('running');
  });

  it('is written after half a second of changes, even fewer than 50', async () => {
    const run = await createRun(store, 'wf', manual);
    let clock = 0;
    const writer = progressWriter(store, run.id, () => clock);
    writer.saw(acted(1));
    clock = PROGRESS_EVERY_MS;
    writer.saw(acted(2));
    await writer.stop();
    expect((await getRun(store, run.id)).counts.acted).toBe(2);
  });

  it('writes nothing once stopped, and nothing onto a run that no longer runs', async () => {
    const run = await createRun(store, 'wf', manual);
    const stopped = progressWriter(store, run.id, () => 0);
    await stopped.stop();
    for (let n = 1; n <= PROGRESS_EVERY_CHANGES; n++) stopped.saw(acted(n));
    expect((await getRun(store, run.id)).counts.acted).toBe(0);

    const current = await getRun(store, run.id);
    await store.update('runs', { ...current, status: 'waiting' }, current.version);
    const late = progressWriter(store, run.id, () => 0);
    for (let n = 1; n <= PROGRESS_EVERY_CHANGES; n++) late.saw(acted(n));
    await late.stop();
    const read = await getRun(store, run.id);
    expect(read.counts.acted).toBe(0);
    expect(read.version).toBe(current.version + 1); // the one write above, none of the writer's
  });
});

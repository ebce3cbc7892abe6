/**
 * The running totals `stats` reads (shared/runs/run-totals.ts): a finished run is folded once,
 * a fold lost in a crash is made up, the figures are those of summing every run, and the
 * backfill step of `handoff store migrate` is idempotent and survives a SIGKILL (a real child
 * process) between its write and its marker.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EMPTY_COUNTS, RunSchema, type Run } from '../../shared/records/runs.ts';
import { readStats } from '../../shared/runs/read-stats.ts';
import { listRuns } from '../../shared/runs/run-repository.ts';
import {
  FOLDED_KEPT,
  RUN_TOTALS_ID,
  RUN_TOTALS_MIGRATED_ID,
  backfillRunTotals,
  foldRun,
  readRunTotals,
} from '../../shared/runs/run-totals.ts';
import { statsOf } from '../../shared/runs/stats.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { runCli } from '../support/cli.ts';
import { spyOnStore } from '../support/store-spy.ts';

const NOW = new Date();
const HOUR = 3_600_000;

/** A run started `hoursAgo` hours ago, in `status`, that acted on `acted` items. */
function runRecord(i: number, hoursAgo: number, status: Run['status'], acted: number): Omit<Run, 'version'> {
  const started = new Date(NOW.getTime() - hoursAgo * HOUR);
  const moving = status === 'running' || status === 'waiting';
  return {
    id: `run_t_${String(i).padStart(4, '0')}`,
    workflow_id: 'inbox',
    status,
    trigger: { kind: 'manual', detail: null },
    counts: { ...EMPTY_COUNTS, acted, confident: acted, deferred: i % 3, declined: i % 2 },
    interrupt_id: null,
    dispatch: null,
    snapshot: null,
    error: null,
    owner: null,
    started_at: started.toISOString(),
    finished_at: moving ? null : new Date(started.getTime() + 60_000).toISOString(),
  };
}

/** Runs over the last twenty days: finished ones, one waiting, one running. */
async function seedRuns(store: Store, n: number): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < n; i++) {
    const status = i === n - 1 ? 'waiting' : i === n - 2 ? 'running' : i % 5 === 0 ? 'failed' : 'completed';
    runs.push(RunSchema.parse(await store.create('runs', runRecord(i, (n - i) * 4, status, i + 1))));
  }
  return runs;
}

/** The figures of `stats` summed from every run (the older way). */
async function fromEveryRun(store: Store) {
  const all = statsOf(await listRuns(store), NOW);
  return { overall: all.overall, today: all.today, this_week: all.this_week };
}

describe('running totals of finished runs', () => {
  let root: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-totals-'));
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));
  const freshStore = async (name: string) => new JsonFileStore(path.join(root, name));

  it('a finished run is folded once, however often it is folded', async () => {
    const store = await freshStore('once');
    const [run] = await seedRuns(store, 3);
    await foldRun(store, run!, NOW);
    await foldRun(store, run!, NOW);
    const totals = await readRunTotals(store);
    expect(totals?.overall).toMatchObject({ runs: 1, acted: 1 });
    expect(totals?.complete).toBe(true); // the workspace's only finished run: complete from the first fold
  });

  it('a running or waiting run is not folded (its counts still change)', async () => {
    const store = await freshStore('moving');
    const runs = await seedRuns(store, 3);
    for (const run of runs.slice(1)) await foldRun(store, run, NOW);
    expect(await readRunTotals(store)).toBeUndefined();
  });

  it('`stats` from the totals gives the figures of summing every run, reading no run list', async () => {
    // Prepare: 60 runs over twenty days (folded by the backfill), two of them still moving.
    const store = await freshStore('same');
    await seedRuns(store, 60);
    expect((await backfillRunTotals(store, NOW)).runs).toBe(58);
    const spy = spyOnStore(store);
    // Act
    const stats = await readStats(spy.store, NOW);
    // Assess
    expect(spy.fullReads).toEqual([]);
    expect(stats).toMatchObject(await fromEveryRun(store));
    expect(stats.overall.runs).toBe(60);
    expect(stats.this_week.runs).toBeGreaterThan(stats.today.runs);
    expect(stats.runs).toHaveLength(60);
    expect(stats.runs_next_cursor).toBeNull();
  });

  it('lists the newest hundred runs and says where the older ones start', async () => {
    const store = await freshStore('page');
    await seedRuns(store, 130);
    await backfillRunTotals(store, NOW);
    const stats = await readStats(store, NOW);
    expect(stats.runs).toHaveLength(100);
    expect(stats.runs[0]!.run_id).toBe('run_t_0129');
    expect(stats.runs_next_cursor).not.toBeNull();
    expect(stats.overall.runs).toBe(130);
  });

  it('a fold lost in a crash (the run written, the totals not) is made up by the next `stats`, once', async () => {
    const store = await freshStore('lost');
    await seedRuns(store, 10);
    await backfillRunTotals(store, NOW);
    // A run that finished after the totals were made, whose fold never happened.
    await store.create('runs', { ...runRecord(500, 0.5, 'completed', 7), id: 'run_t_lost' });
    const stats = await readStats(store, NOW);
    expect(stats).toMatchObject(await fromEveryRun(store));
    expect(stats.overall.runs).toBe(11);
    expect((await readStats(store, NOW)).overall.runs).toBe(11); // folded once, not again
  });

  it('keeps a bounded list of folded runs; older finishes count as folded', async () => {
    const store = await freshStore('bounded');
    let totals = undefined as Awaited<ReturnType<typeof readRunTotals>>;
    const runs = Array.from({ length: FOLDED_KEPT + 5 }, (_, i) =>
      RunSchema.parse({ ...runRecord(i, FOLDED_KEPT + 10 - i, 'completed', 1), version: 1 }),
    );
    await store.create('runs', runs[0]!); // the first fold finds it alone
    for (const run of runs) await foldRun(store, run, NOW);
    totals = await readRunTotals(store);
    expect(totals?.folded).toHaveLength(FOLDED_KEPT);
    expect(totals?.overall.runs).toBe(FOLDED_KEPT + 5);
    await foldRun(store, runs[0]!, NOW); // dropped from the list, and not folded again
    expect((await readRunTotals(store))?.overall.runs).toBe(FOLDED_KEPT + 5);
  });

  it('an older workspace reads every run until the backfill has run', async () => {
    const store = await freshStore('older');
    const runs = await seedRuns(store, 6);
    await foldRun(store, runs[1]!, NOW); // this build's first fold finds older finished runs
    expect((await readRunTotals(store))?.complete).toBe(false);
    const spy = spyOnStore(store);
    expect(await readStats(spy.store, NOW)).toMatchObject(await fromEveryRun(store));
    expect(spy.fullReads).toContain('list runs');
    await backfillRunTotals(store, NOW);
    spy.reset();
    expect(await readStats(spy.store, NOW)).toMatchObject(await fromEveryRun(store));
    expect(spy.fullReads).toEqual([]);
  });

  it('`handoff store migrate` backfills the totals: killed before its marker, run again, the same totals; then nothing', async () => {
    // Prepare: a workspace with history and no totals.
    const stateDir = path.join(root, 'migrate');
    const store = new JsonFileStore(workspaceDir(stateDir, 'default'));
    await seedRuns(store, 40);
    const env = { HANDOFF_STATE_DIR: stateDir };
    // Act 1: killed after the totals were written, before the marker.
    const killed = await runCli(['store', 'migrate', '--json'], {
      ...env,
      HANDOFF_CRASH_AT: 'migrate:totals-written',
    });
    expect(killed.signal).toBe('SIGKILL');
    const halfway = await readRunTotals(store);
    expect(halfway?.overall.runs).toBe(38);
    expect(await store.get('settings', RUN_TOTALS_MIGRATED_ID)).toBeUndefined();
    // Act 2: run again: the same sums (made afresh, not added twice), and the marker.
    const again = await runCli(['store', 'migrate', '--json'], env);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ workspace: 'default', run_totals: 38 }),
    ]);
    const done = await readRunTotals(store);
    expect(done).toMatchObject({ overall: halfway!.overall, months: halfway!.months, complete: true });
    expect(await store.get('settings', RUN_TOTALS_MIGRATED_ID)).toBeDefined();
    expect(await readStats(store)).toMatchObject({ overall: (await fromEveryRun(store)).overall });
    // Act 3: once more: it reads its marker and writes nothing.
    const third = await runCli(['store', 'migrate', '--json'], env);
    expect((JSON.parse(third.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ already_done: true, run_totals: 0 }),
    ]);
    expect((await store.get('settings', RUN_TOTALS_ID))?.version).toBe(done!.version);
  });
});

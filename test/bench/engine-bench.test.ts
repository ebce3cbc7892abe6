import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { startDynaliteServer } from '../../bench/bench-dynamo.ts';
import { growth, medians } from '../../bench/engine-report.ts';
import { measure, measureSeries, type SizeResult } from '../../bench/engine-run.ts';
import { WORKFLOW_ID, openWorkspace } from '../../bench/engine-workspace.ts';
import { DEFAULT_SEED, generateInbox } from '../../bench/generate-mail.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';

const N = 30;
const RESULTS = path.resolve('bench/results/engine.json');

describe('npm run bench', () => {
  it('runs the bare Strands floor with the same tool calls as the engine over the same inbox, and no store', async () => {
    const engine = await measure(N, DEFAULT_SEED, {
      source: 'maildir',
      store: 'memory',
      resume: false,
      keep: false,
    });
    const floor = await measure(N, DEFAULT_SEED, {
      source: 'floor',
      store: 'none',
      resume: false,
      keep: false,
    });

    expect(engine.status).toBe('waiting');
    expect(floor.acted).toBe(N);
    expect(floor.tool_calls).toBe(engine.tool_calls);
    // 3 pages of 10: recall_rules, 4 fetch_items (the last one empty), 30 submit_action, finish_batch.
    expect(floor.tool_calls).toBe(1 + 4 + N + 1);
    // The engine pauses on its one interrupt at finish_batch; the floor has no gate and closes with a text turn.
    // The engine also writes reply drafts (one tool-less turn each): one for each item it sets aside
    // (the workflow offers draft_reply), and one for each reply it drafts unasked.
    const drafts = engine.turns - (floor.turns - 1);
    expect(drafts).toBeGreaterThanOrEqual(engine.deferred);
    expect(drafts).toBeLessThanOrEqual(engine.deferred + engine.acted);
    expect(floor.store_writes).toBe(0);
  });

  it('answers every question of the one interrupt through decide, resumes the run, and counts its writes', async () => {
    const run = await measure(N, DEFAULT_SEED, {
      source: 'maildir',
      store: 'memory',
      resume: true,
      keep: false,
    });

    expect(run.deferred).toBeGreaterThan(1);
    expect(run.resume).toMatchObject({
      answers: run.deferred,
      status_after: 'completed',
      round_trips: 1,
      round_trips_one_interrupt_per_call: run.deferred,
    });
    expect(run.resume!.store_writes_per_answer).toBeGreaterThan(0);
  });

  it('runs a warm series of every size in one workspace, each run the same work as a cold one, its resume apart', async () => {
    const opts = { source: 'maildir' as const, store: 'json' as const, resume: true, keep: false };
    const series = await measureSeries([10, N], DEFAULT_SEED, { ...opts, warm: true, rounds: 1 });
    const cold = await measure(N, DEFAULT_SEED, opts);

    // After an untimed round, a round of each size times 1,000 items: 100 runs of 10, 34 of 30.
    expect(series.map((r) => [r.n, r.warm, r.timed_runs])).toEqual([
      [10, true, 100],
      [N, true, 34],
    ]);
    // One workspace for the whole series: every run of both rounds (100 + 34 each) is in it.
    expect(series.map((r) => r.workspace_runs)).toEqual([268, 268]);
    expect(cold.warm).toBe(false);
    const work = (r: SizeResult) => [
      r.status,
      r.acted,
      r.deferred,
      r.tool_calls,
      r.store_writes,
      r.store_calls,
    ];
    expect(work(series[1]!)).toEqual(work(cold));
    // A run's fixed writes: the run with its audit entry, each batch's claim and record, the
    // trace with its usage, the questions with the interrupt and the waiting run.
    expect(cold.store_writes).toBe(5);
    // Answered in a workspace of its own: every question of the run, as cold.
    expect(series[1]!.resume).toMatchObject({ answers: cold.deferred, status_after: 'completed' });
  });

  it('settles a run of a workspace as a server finds it before the next: questions lapsed, INBOX empty', async () => {
    const ws = await openWorkspace({ source: 'maildir', store: 'json', keep: false });
    try {
      const counts = [];
      for (const tag of ['a', 'b']) {
        await ws.deliver(
          generateInbox(N, DEFAULT_SEED).messages.map((m) => ({ ...m, messageId: `${tag}${m.messageId}` })),
        );
        const run = await startRun(ws.deps, WORKFLOW_ID, { kind: 'manual', detail: null });
        expect(run.status).toBe('waiting');
        await ws.settle();
        expect(await listPending(ws.deps.store)).toEqual([]);
        expect((await getRun(ws.deps.store, run.id)).status).toBe('completed');
        counts.push(run.counts);
      }
      // The second run found only its own mail: the same work as the first.
      expect(counts[1]).toEqual(counts[0]);
      expect(counts[0]!.acted + counts[0]!.deferred).toBe(N);
    } finally {
      await ws.close();
    }
  });

  it('pairs each warm timed run with the floor in the same process, and judges growth on the pairs', async () => {
    const opts = { source: 'maildir' as const, store: 'memory' as const, resume: false, keep: false };
    const paired = await measure(100, DEFAULT_SEED, { ...opts, warm: true, pairFloor: true, rounds: 1 });

    expect(paired.timed_runs).toBe(10);
    expect(paired.paired_floor_ms_per_item).toBeGreaterThan(0);
    expect(paired.paired_x_floor).toBeGreaterThan(1); // the engine does the floor's work and more
    // The ratio of the two interleaved series' medians.
    expect(paired.paired_x_floor).toBeCloseTo(
      paired.platform_ms_per_item / paired.paired_floor_ms_per_item!,
      1,
    );
    const unpaired = await measure(100, DEFAULT_SEED, { ...opts, warm: true, rounds: 1 });
    expect(unpaired.paired_x_floor).toBeUndefined();

    // The report takes the children's paired ratios over the ratio of the two variants' medians.
    const row = (n: number, ms: number, pairedX?: number) =>
      ({
        source: n < 0 ? 'floor' : 'maildir',
        store: n < 0 ? 'none' : 'json',
        n: Math.abs(n),
        platform_ms_per_item: ms,
        wall_ms: ms,
        resume: null,
        ...(pairedX !== undefined ? { paired_x_floor: pairedX } : {}),
      }) as unknown as SizeResult;
    const rows = medians([
      row(-10, 1),
      row(-1000, 0.2),
      row(10, 4, 5),
      row(10, 6, 4.5),
      row(10, 5, 4),
      row(1000, 1, 5),
    ]);
    expect(rows.find((r) => r.source === 'maildir' && r.n === 10)).toMatchObject({
      platform_ms_per_item: 5,
      paired_x_floor: 4.5,
      x_floor: 4.5, // not 5 / 1
    });
    expect(growth(rows)[1]).toMatchObject({ x_floor: { 10: 4.5, 1000: 5 }, x_floor_max_over_min: 1.11 });
  });

  it('runs the engine on the DynamoDB store against dynalite, the same work as on JSON files', async () => {
    const dynalite = await startDynaliteServer();
    try {
      const opts = { source: 'maildir' as const, resume: false, keep: false };
      const dynamo = await measure(10, DEFAULT_SEED, {
        ...opts,
        store: 'dynamodb',
        dynamodbEndpoint: dynalite.endpoint,
      });
      const json = await measure(10, DEFAULT_SEED, { ...opts, store: 'json' });

      expect(dynamo.store).toBe('dynamodb');
      expect(dynamo.status).toBe('waiting');
      expect([dynamo.acted, dynamo.deferred]).toEqual([json.acted, json.deferred]);
      expect(dynamo.store_writes).toBeGreaterThan(0);
    } finally {
      await dynalite.stop();
    }
  });

  it('reports each variant against the floor at the same N and its growth against the 1.3x target', () => {
    const row = (
      source: SizeResult['source'],
      store: SizeResult['store'],
      n: number,
      ms: number,
      resumeS = 0,
    ) =>
      ({
        source,
        store,
        n,
        platform_ms_per_item: ms,
        wall_ms: ms * n,
        resume: resumeS ? { wall_s: resumeS } : null,
      }) as unknown as SizeResult;
    const rows = medians([
      row('floor', 'none', 10, 0.2),
      row('floor', 'none', 1000, 0.25),
      row('maildir', 'json', 10, 2, 0.5),
      row('maildir', 'json', 10, 3, 0.1),
      row('maildir', 'json', 10, 9, 0.2),
      row('maildir', 'json', 1000, 3.5),
    ]);

    const json10 = rows.find((r) => r.store === 'json' && r.n === 10)!;
    expect(json10.platform_ms_per_item).toBe(3);
    expect(json10.spread?.platform_ms_per_item).toEqual([2, 9]);
    expect(json10.x_floor).toBe(15);
    // The resume's median is its own: 0.2 s, from another run than the platform time's median.
    expect(json10.resume?.wall_s).toBe(0.2);
    expect(json10.spread?.resume_s).toEqual([0.1, 0.5]);
    expect(growth(rows)).toEqual([
      {
        variant: 'bare Strands floor',
        ms_per_item: { 10: 0.2, 1000: 0.25 },
        max_over_min: 1.25,
        flat: true,
        x_floor: { 10: 1, 1000: 1 },
        x_floor_max_over_min: 1,
        flat_vs_floor: true,
      },
      {
        variant: 'maildir, JSON files',
        ms_per_item: { 10: 3, 1000: 3.5 },
        max_over_min: 1.17,
        flat: true,
        // 15× the floor at 10, 14× at 1,000.
        x_floor: { 10: 15, 1000: 14 },
        x_floor_max_over_min: 1.07,
        flat_vs_floor: true,
      },
    ]);
    // A variant that grows beyond the floor's own growth is not flat against it, though flat on its own.
    const steep = medians([
      row('floor', 'none', 10, 0.5),
      row('floor', 'none', 1000, 0.25),
      ...rows.filter((r) => r.store === 'json'),
    ]);
    expect(growth(steep).find((g) => g.variant === 'maildir, JSON files')).toMatchObject({
      flat: true,
      x_floor_max_over_min: 2.33,
      flat_vs_floor: false,
    });
  });

  it('refuses an unknown store with one line and runs nothing', () => {
    const before = readFileSync(RESULTS, 'utf8');
    const out = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench/engine.ts', '--stores', 'json,sqlite'],
      {
        encoding: 'utf8',
      },
    );

    expect(out.status).toBe(2);
    expect(out.stderr.trim().split('\n')).toEqual([
      'bench: --stores wants some of json, memory, dynamodb, got "sqlite"',
    ]);
    expect(out.stdout).toBe('');
    expect(readFileSync(RESULTS, 'utf8')).toBe(before);
  });

  it("prints a warm child's series as one JSON line the parent reads, and refuses several sizes cold", () => {
    const child = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bench/engine.ts', '--child', ...args], {
        encoding: 'utf8',
      });
    const warm = child('100', '--source', 'maildir', '--store', 'memory', '--warm', '--no-resume', '--json');
    expect(warm.status).toBe(0);
    const rows = JSON.parse(warm.stdout.trim().split('\n').at(-1)!) as SizeResult[];
    expect(rows.map((r) => [r.n, r.warm, r.timed_runs])).toEqual([[100, true, 30]]);

    const cold = child('10,100', '--source', 'maildir', '--store', 'memory', '--json');
    expect(cold.status).toBe(2);
    expect(cold.stderr.trim()).toBe('bench: --child takes one size; several are a --warm series');
    expect(cold.stdout).toBe('');
  });
});

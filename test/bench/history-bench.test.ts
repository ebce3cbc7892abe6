import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { MIN_RUNS } from '../../bench/history-seed.ts';

const RESULTS = path.resolve('bench/results/history.json');
const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/history.ts', ...args], { encoding: 'utf8' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-history-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPERATIONS = ['run_10', 'run_page', 'activity', 'answer', 'audit_run', 'digest', 'memory', 'stats'];

describe('npm run bench:history', () => {
  it('lists its flags with --help, and refuses a bad one with one line, writing nothing', () => {
    expect(bench('--help').stdout).toMatch(/--sizes 1000,10000,100000/);
    const before = readFileSync(RESULTS, 'utf8');
    for (const [args, message] of [
      [['--nope'], "bench:history: Unknown option '--nope'"],
      [['--repeats', '0'], 'bench:history: --repeats wants a whole number of at least 1, got "0"'],
      [['--stores', 'sqlite'], 'bench:history: --stores takes json and dynamodb, got "sqlite"'],
    ] as const) {
      const out = bench(...args);
      expect({ status: out.status, stderr: out.stderr.trim().split('\n') }).toEqual({
        status: 2,
        stderr: [message],
      });
    }
    expect(readFileSync(RESULTS, 'utf8')).toBe(before);
  });

  it('times every operation at each size, the sizes interleaved, on the JSON store', () => {
    const out = path.join(dir, 'history.json');
    const run = bench(
      '--sizes',
      '100,300',
      '--rules',
      '20',
      '--stores',
      'json',
      '--repeats',
      '1',
      '--out',
      out,
    );
    expect(run.status).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result).toMatchObject({ sizes: [100, 300], rules: 20, repeats: 1, stores: ['json'] });
    expect(result.rows.map((r: { size: number }) => r.size)).toEqual([100, 300]);
    for (const row of result.rows) {
      // At least MIN_RUNS (101) runs at every size (empty older ones at small sizes): `stats` reads the same page of runs.
      expect(row.seeded).toMatchObject({ rules: 20, runs: Math.max(MIN_RUNS, row.size / 100) });
      expect(row.seeded.outcomes).toBe(row.size);
      for (const op of OPERATIONS) expect(row.ms[op].median).toBeGreaterThan(0);
    }
    expect(run.stdout).toMatch(/\| json \| 300 \|/);
  }, 120_000);
});

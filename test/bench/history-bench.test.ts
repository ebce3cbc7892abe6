import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';

const RESULTS = path.resolve('bench/results/history.json');
const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/history.ts', ...args], { encoding: 'utf8' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-history-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench:history', () => {
  it('lists its flags with --help, and refuses a bad one with one line, writing nothing', () => {
    expect(bench('--help').stdout).toMatch(/--history 20000/);
    const before = readFileSync(RESULTS, 'utf8');
    for (const [args, message] of [
      [['--nope'], "bench:history: Unknown option '--nope'"],
      [['--repeats', '0'], 'bench:history: --repeats wants a whole number of at least 1, got "0"'],
    ] as const) {
      const out = bench(...args);
      expect({ status: out.status, stderr: out.stderr.trim().split('\n') }).toEqual({
        status: 2,
        stderr: [message],
      });
    }
    expect(readFileSync(RESULTS, 'utf8')).toBe(before);
  });

  it('times the same small runs in a young workspace and in one holding the history', () => {
    const out = path.join(dir, 'history.json');
    const run = bench('--history', '300', '--size', '5', '--repeats', '2', '--out', out);
    expect(run.status).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result).toMatchObject({ size: 5, repeats: 2, history: 300 });
    const [young, old] = result.rows;
    expect(young).toMatchObject({ workspace: 'young', settled_outcomes: 0, settled_decisions: 0 });
    expect(old.workspace).toBe('old');
    expect(old.settled_outcomes).toBeGreaterThanOrEqual(300);
    expect(old.settled_decisions).toBeGreaterThan(0);
    for (const row of result.rows)
      for (const measure of ['run_ms', 'answer_ms', 'pending_ms', 'housekeeping_ms'])
        expect(row[measure].median).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/\| old \| \d+ \/ \d+ \|/);
  }, 120_000);
});

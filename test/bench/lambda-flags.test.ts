import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

const RESULTS = path.resolve('bench/results/lambda.json');
const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/lambda.ts', ...args], { encoding: 'utf8' });

describe('npm run bench:lambda flags', () => {
  it('lists its flags with --help', () => {
    const out = bench('--help');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/--sizes 10,50/);
    expect(out.stdout).toMatch(/HANDOFF_BENCH_DYNAMODB=local/);
  });

  it('refuses a bad flag or size with one line, measuring and writing nothing', () => {
    const before = readFileSync(RESULTS, 'utf8');
    for (const [args, message] of [
      [['--nope'], "bench:lambda: Unknown option '--nope'"],
      [['--sizes', '10,x'], 'bench:lambda: --sizes wants positive integers separated by commas, got "10,x"'],
      [['--samples', '0'], 'bench:lambda: --samples wants a positive integer, got "0"'],
    ] as const) {
      const out = bench(...args);
      expect({ args, status: out.status, stderr: out.stderr.trim().split('\n') }).toEqual({
        args,
        status: 2,
        stderr: [message],
      });
    }
    expect(readFileSync(RESULTS, 'utf8')).toBe(before);
  });
});

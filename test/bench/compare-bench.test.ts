import { spawnSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';

const bench = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/compare.ts', ...args], { encoding: 'utf8' });

describe('npm run bench:compare', () => {
  it('refuses a bad or missing flag with one line, exit 2', () => {
    for (const [args, message] of [
      [['--nope'], "bench:compare: Unknown option '--nope'"],
      [[], 'bench:compare: --other DIR is required: the checkout to compare with'],
      [['--other', '.', '--runs', '0'], 'bench:compare: --runs wants a whole number of at least 1, got "0"'],
      [
        ['--other', '.', '--store', 'dynamodb'],
        'bench:compare: --store wants json or memory, got "dynamodb"',
      ],
    ] as const) {
      const out = bench(...args);
      expect({ args, status: out.status, stderr: out.stderr.trim().split('\n') }).toEqual({
        args,
        status: 2,
        stderr: [message],
      });
    }
  });

  it('times both checkouts, interleaved, and prints a median for each', () => {
    const out = bench('--other', '.', '--size', '5', '--runs', '2');
    expect(out.status).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toBe('2 runs of 5 items each, json store, interleaved; platform ms per item');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^this checkout: median \d+(\.\d+)? \(quartiles [\d.]+–[\d.]+\)$/),
      expect.stringMatching(/^\/.+: median \d+(\.\d+)? \(quartiles [\d.]+–[\d.]+\)$/),
    ]);
  }, 60_000);
});

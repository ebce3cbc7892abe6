import { spawnSync } from 'node:child_process';
import { expect, it } from '@jest/globals';

const run = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/resume-last.ts', ...args], { encoding: 'utf8' });

it('times the last answer and the resume on fresh copies of one waiting run', () => {
  const out = run(['--size', '20', '--repeats', '2']);

  expect(out.status).toBe(0);
  const lines = out.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^20 messages, \d+ questions; the last answer and the resume:$/);
  // Each copy starts waiting on its last question: the answer completes the run every time.
  expect(lines.slice(1, 3)).toEqual([
    expect.stringMatching(/^ {2}\d+ ms, run completed, \d+ store writes$/),
    expect.stringMatching(/^ {2}\d+ ms, run completed, \d+ store writes$/),
  ]);
  expect(lines[3]).toMatch(/^median [\d.]+ s \([\d.]+–[\d.]+\), 2 runs$/);
});

it('refuses a size that is not a whole number with one line and runs nothing', () => {
  const out = run(['--size', 'many']);

  expect(out.status).toBe(2);
  expect(out.stderr.trim().split('\n')).toEqual([
    'bench: --size wants a whole number of at least 1, got "many"',
  ]);
  expect(out.stdout).toBe('');
});

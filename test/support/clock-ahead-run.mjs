/**
 * `npm run test:clock-ahead [-- --dated] [-- JEST ARGS]`: the suite with every Node process's
 * clock a year ahead (clock-ahead.cjs; HANDOFF_TEST_CLOCK_DAYS to choose another offset). A
 * test that holds only until some date (a fixture's deadline, a signed link's expiry, a
 * cron's next firing) fails here today instead of in CI on that date. `--dated` runs only the
 * test files that name a date, a deadline, a schedule or a fixture (what CI runs a year ahead).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** What makes a test file date-sensitive: a fixture, a date, an expiry, a schedule. */
const DATED = /fixtures|expires_at|\bexp\b|\d{4}-[01]\d-[0-3]\d|cron\(|scheduled_time|TTL|expire/;

function datedTestFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return datedTestFiles(file);
    return entry.name.endsWith('.test.ts') && DATED.test(readFileSync(file, 'utf8')) ? [file] : [];
  });
}

const root = path.resolve(import.meta.dirname, '../..');
const preload = path.join(root, 'test/support/clock-ahead.cjs');
const env = {
  ...process.env,
  HANDOFF_TEST_CLOCK_DAYS: process.env.HANDOFF_TEST_CLOCK_DAYS ?? '365',
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
};
const jest = path.join(root, 'node_modules/jest/bin/jest.js');
const args = process.argv.slice(2);
const dated = args.includes('--dated');
const jestArgs = dated
  ? ['--runTestsByPath', ...datedTestFiles(path.join(root, 'test')), ...args.filter((a) => a !== '--dated')]
  : args;
const result = spawnSync(process.execPath, ['--experimental-vm-modules', jest, ...jestArgs], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

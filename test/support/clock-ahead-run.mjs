/**
 * `npm run test:clock-ahead [-- JEST ARGS]`: the suite with every Node process's clock a year
 * ahead (clock-ahead.cjs; HANDOFF_TEST_CLOCK_DAYS to choose another offset). A test that
 * holds only until some date (a fixture's deadline, a signed link's expiry, a cron's next
 * firing) fails here today instead of in CI on that date.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const preload = path.join(root, 'test/support/clock-ahead.cjs');
const env = {
  ...process.env,
  HANDOFF_TEST_CLOCK_DAYS: process.env.HANDOFF_TEST_CLOCK_DAYS ?? '365',
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
};
const jest = path.join(root, 'node_modules/jest/bin/jest.js');
const result = spawnSync(process.execPath, ['--experimental-vm-modules', jest, ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

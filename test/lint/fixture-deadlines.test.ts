/**
 * Fixtures are read by tests that run on any day: a deadline written into one (a decision's
 * `expires_at`, a link's `exp`) must lie beyond any day the suite will run on, or the product
 * starts acting on it (expiring questions, refusing links) and the test's expectations rot
 * on that date. `npm run test:clock-ahead` runs the date-sensitive suites a year ahead.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';

const TEST_ROOT = path.resolve(import.meta.dirname, '..');
/** A deadline at or after this never comes while the suite is in use. */
const FAR_FUTURE = Date.parse('2090-01-01T00:00:00Z');
const DEADLINE = /"(expires_at|exp|expires|expiry|deadline|valid_until)"\s*:\s*("([^"]*)"|(\d+))/g;

async function fixtureFiles(dir: string, inFixtures = false): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return fixtureFiles(full, inFixtures || entry.name === 'fixtures');
      return inFixtures && entry.isFile() ? [full] : [];
    }),
  );
  return nested.flat();
}

function deadlineMs(text: string | undefined, seconds: string | undefined): number {
  if (seconds !== undefined) return Number(seconds) * (seconds.length <= 11 ? 1000 : 1);
  return Date.parse(text ?? '');
}

it('no fixture holds a deadline that a day of running the suite can reach', async () => {
  const near: string[] = [];
  for (const file of await fixtureFiles(TEST_ROOT)) {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    for (const match of text.matchAll(DEADLINE)) {
      const at = deadlineMs(match[3], match[4]);
      if (Number.isFinite(at) && at < FAR_FUTURE) near.push(`${path.relative(TEST_ROOT, file)}: ${match[0]}`);
    }
  }
  expect(near).toEqual([]);
});

it('finds a near deadline when a fixture has one (the check can fail)', () => {
  const sample = '{"expires_at": "2026-12-04T20:39:09.315Z", "exp": 1796000000}';
  const found = [...sample.matchAll(DEADLINE)].map((m) => deadlineMs(m[3], m[4]));
  expect(found).toHaveLength(2);
  expect(found.every((at) => at < FAR_FUTURE)).toBe(true);
});

/**
 * A tripwire for the mechanism, not one case: the collections that can hold an administrator's
 * setting (workflows, integration entries, settings) are written in four modules only, and
 * each refuses a member's administrator settings before it writes. A new write elsewhere fails
 * here until it goes through one of them (or checks the actor itself and is added below).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from '@jest/globals';

const ROOT = path.resolve(import.meta.dirname, '../../shared');
const GUARDED = /'(workflows|tool_servers|settings)'/;
const WRITE = /\b(put|create|update|commitAll|commit)\(|kind: '(put|create|update)'/;
const CHECKED = [
  'workflows/repository.ts',
  'integrations/registry.ts',
  'settings/settings.ts',
  'workspace/apply.ts',
];

async function sources(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  // The store itself is below the mechanism: it writes what it is given.
  return nested.flat().filter((f) => f.endsWith('.ts') && !f.startsWith(path.join(ROOT, 'store') + path.sep));
}

it('writes workflows, integration entries and settings only where the actor is checked', async () => {
  const writers: string[] = [];
  for (const file of await sources(ROOT)) {
    const text = await fs.readFile(file, 'utf8');
    const lines = text.split('\n');
    const writes = lines.some((line, i) => {
      const near = lines.slice(Math.max(0, i - 3), i + 4).join('\n');
      return WRITE.test(line) && GUARDED.test(near) && !/\bdelete\(/.test(line);
    });
    if (writes || (GUARDED.test(text) && /const COLLECTION/.test(text)))
      writers.push(path.relative(ROOT, file));
  }
  expect(writers.sort()).toEqual([...CHECKED].sort());
  for (const file of CHECKED)
    expect(await fs.readFile(path.join(ROOT, file), 'utf8')).toMatch(/refuseAdministratorSettings\(/);
});

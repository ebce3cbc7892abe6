import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { plural } from '../../shared/text/plural.ts';

/**
 * Issue 31: "5 question(s)" breaks trust. A count the product prints is followed by its noun in
 * the right number (`1 item`, `12 items`), through `plural` (shared/text/plural.ts), on every
 * surface: CLI, web, API errors, doctor, the assistant, MCP.
 */
const ROOTS = ['shared', 'bin', 'lambdas', 'lib'];
/** A counted noun with "(s)" after an interpolated number: `${n} item(s)`, `${n} model turn(s)`. */
const MAYBE_PLURAL = /\$\{[^{}]+\} [a-z]+(?: [a-z]+)?\(s\)/g;

async function sources(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sources(full)));
    else if (entry.name.endsWith('.ts')) found.push(full);
  }
  return found;
}

it('no message counts things as "item(s)": each says 1 item or N items', async () => {
  const offenders: string[] = [];
  for (const root of ROOTS)
    for (const file of await sources(root)) {
      const text = await fs.readFile(file, 'utf8');
      for (const match of text.matchAll(MAYBE_PLURAL)) offenders.push(`${file}: ${match[0]}`);
    }
  expect(offenders).toEqual([]);
});

it('plural says one or many', () => {
  expect(plural(1, 'item')).toBe('1 item');
  expect(plural(5, 'question')).toBe('5 questions');
  expect(plural(0, 'model turn')).toBe('0 model turns');
});

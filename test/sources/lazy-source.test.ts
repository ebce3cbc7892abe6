/**
 * A mail source opens without loading its adapter (and the mail parser it carries): the
 * adapter loads on the first call, once, and then answers exactly as itself.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { LazySource } from '../../shared/sources/lazy-source.ts';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { MaildirSource } from '../../shared/sources/maildir/maildir-source.ts';
import { openSource } from '../../shared/sources/open-source.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-lazy-source-'));
  await createDemoMaildir(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

it('loads the adapter on first use only, once, and a source never used closes without loading it', async () => {
  let loads = 0;
  const load = () => {
    loads++;
    return Promise.resolve(new MaildirSource(dir));
  };
  const unused = new LazySource(load);
  await unused.close();
  expect(loads).toBe(0);

  const source = new LazySource(load, 7);
  expect(source.actBatch).toBe(7);
  expect(loads).toBe(0);
  const refs = await source.listRefs();
  await source.read(refs[0]!);
  await source.close();
  expect(loads).toBe(1);
});

it('answers as the adapter itself: the same refs and items, batch reads item by item, "maybe new"', async () => {
  const workflow = { id: 'inbox', source: { type: 'maildir', path: dir } } as Workflow;
  const lazy = openSource(workflow, { run: { id: 'run_1', trigger: { kind: 'manual', detail: '' } } });
  const direct = new MaildirSource(dir);

  const refs = await direct.listRefs();
  expect(await lazy.listRefs()).toEqual(refs);
  expect(await lazy.readMany!(refs.slice(0, 3))).toEqual([
    await direct.read(refs[0]!),
    await direct.read(refs[1]!),
    await direct.read(refs[2]!),
  ]);
  expect(await lazy.mayHaveNew!()).toBe(true);
  expect(lazy.actBatch).toBeUndefined();
});

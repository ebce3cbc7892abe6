import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { runCli } from '../support/cli.ts';

let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-demo-cli-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

it('handoff demo sets up the demo inbox; --more delivers a fresh day into it; before that, one line and exit 1', async () => {
  const early = await runCli(['demo', '--more'], env);
  expect({ code: early.code, err: early.stderr.trim() }).toEqual({
    code: 1,
    err: 'handoff: there is no demo inbox yet: run handoff demo first',
  });

  const made = await runCli(['demo', '--json'], env);
  expect(made.code).toBe(0);
  const setup = JSON.parse(made.stdout) as { workflow: string; maildir: string };
  expect(setup.workflow).toBe('inbox-triage');
  const before = (await fs.readdir(path.join(setup.maildir, 'new'))).length;

  const more = await runCli(['demo', '--more'], env);
  expect(more.code).toBe(0);
  expect(more.stdout).toMatch(/^Delivered \d+ new messages\. Run it: handoff run inbox-triage$/m);
  expect((await fs.readdir(path.join(setup.maildir, 'new'))).length).toBeGreaterThan(before);
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from '@jest/globals';
import { runCli } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

/** Issue 31: "a skipped run says why", on the command line too, not "skipped — 0 acted …". */
let env: Record<string, string>;

beforeAll(async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-skipped-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const maildir = path.join(dir, 'Maildir');
  for (const sub of ['new', 'cur', 'tmp']) await fs.mkdir(path.join(maildir, sub), { recursive: true });
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  expect((await runCli(['workflows', 'add', path.join(dir, 'inbox.yaml')], env)).code).toBe(0);
});

it('a run that finds nothing new says why, in words and in --json', async () => {
  const plain = await runCli(['run', 'inbox'], env);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toMatch(/: skipped — no new mail in the source\n/);
  expect(plain.stdout).not.toMatch(/0 acted/);

  const json = await runCli(['run', 'inbox', '--json'], env);
  const summary = JSON.parse(json.stdout) as { status: string; skip_reason?: string };
  expect(summary.status).toBe('skipped');
  expect(summary.skip_reason).toMatch(/^no new mail since \d\d:\d\d UTC$/);
});

it('the assistant says why too, when asked to run it in chat', async () => {
  const asked = JSON.parse((await runCli(['chat', '--message', 'run inbox', '--json'], env)).stdout) as {
    chat_id: string;
    confirm?: { tool: string };
  };
  expect(asked.confirm?.tool).toBe('start_run');
  const done = await runCli(['chat', '--chat', asked.chat_id, '--message', 'yes', '--json'], env);
  expect((JSON.parse(done.stdout) as { text: string }).text).toMatch(
    /^Run run_\S+: skipped — no new mail since \d\d:\d\d UTC\.$/,
  );
});

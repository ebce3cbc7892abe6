import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { mail, workflowYaml } from '../support/engine-fixture.ts';

let dir: string;
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

it('handoff decide --this-workflow keeps the rule to its workflow; rules --json says where each applies', async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-this-workflow-'));
  const maildir = path.join(dir, 'Maildir');
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const body = 'Hi,\n\nPlease see the attached note when convenient.\n';
  await writeMaildir(maildir, [
    mail({ from: 'tomi@fastmail.example', subject: 'Following up', body }),
    mail({ from: 'ana@partnerco.example', subject: 'A statement', body }),
  ]);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
  expect(await cliJson(['run', 'inbox'], env)).toMatchObject({ status: 'waiting', deferred: 2 });
  const pending = await cliJson<{ decision_id: string; sender: string }[]>(['pending'], env);
  const idOf = (sender: string) => pending.find((p) => p.sender === sender)!.decision_id;

  const [kept] = await cliJson<{ ok: boolean; learned: string }[]>(
    ['decide', idOf('tomi@fastmail.example'), 'draft_reply', '--this-workflow'],
    env,
  );
  expect(kept).toMatchObject({
    ok: true,
    learned: 'From now on: mail from tomi@fastmail.example → draft a reply (in this workflow only)',
  });
  await cliJson(['decide', idOf('ana@partnerco.example'), 'archive'], env);

  const rules = await cliJson<{ match: { sender?: string }; scope: string; source_key: string | null }[]>(
    ['rules'],
    env,
  );
  const bySender = new Map(rules.map((r) => [r.match.sender, r]));
  expect(bySender.get('tomi@fastmail.example')).toMatchObject({
    scope: 'workflow',
    source_key: `maildir:${maildir}`,
  });
  expect(bySender.get('ana@partnerco.example')).toMatchObject({
    scope: 'source',
    source_key: `maildir:${maildir}`,
  });
});

it('handoff rules --search TEXT lists only the rules that hold TEXT', async () => {
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const found = await cliJson<{ match: { sender?: string } }[]>(['rules', '--search', 'PARTNERCO'], env);
  expect(found.map((r) => r.match.sender)).toEqual(['ana@partnerco.example']);
  expect(await cliJson<unknown[]>(['rules', '--search', 'draft_reply'], env)).toHaveLength(1);
  expect(await cliJson<unknown[]>(['rules', '--search', 'nobody-here'], env)).toEqual([]);
  const words = await runCli(['rules', '--search', 'nobody-here'], env);
  expect(words.stdout.trim()).toBe('No rule holds "nobody-here". See them all: handoff rules');
});

it('handoff rules pages with --limit and --cursor: --json stays the page, the next command on stderr', async () => {
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const every = await cliJson<{ rule_id?: string; id?: string }[]>(['rules'], env);
  expect(every).toHaveLength(2);
  const first = await runCli(['rules', '--limit', '1', '--json'], env);
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toEqual([every[0]]);
  const more = /^More: handoff rules --limit 1 --cursor (\S+)\n$/.exec(first.stderr);
  expect(more).not.toBeNull();
  const rest = await runCli(['rules', '--limit', '1', '--cursor', more![1]!, '--json'], env);
  expect(JSON.parse(rest.stdout)).toEqual([every[1]]);
  expect(rest.stderr).toBe('');
  // A search pages the same way, and its next command keeps the words.
  const searched = await runCli(['rules', '--search', 'mail from', '--limit', '1', '--json'], env);
  expect(JSON.parse(searched.stdout)).toHaveLength(1);
  expect(searched.stderr).toMatch(/^More: handoff rules --search "mail from" --limit 1 --cursor \S+\n$/);
});

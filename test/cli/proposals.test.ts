import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';

const neutral = (from: string) =>
  mail({
    from,
    subject: `Note from ${from}`,
    body: 'Hi,\n\nPlease see the attached note when convenient.\n',
  });

it('handoff rules shows a proposed domain rule with its evidence; accept makes it your rule, a bad id changes nothing', async () => {
  const { dir, workflowFile } = await cliWorkspace('handoff-proposals-', [
    neutral('ana@acme.example'),
    neutral('bo@acme.example'),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  await cliJson(['run', 'inbox'], env);
  for (const p of await cliJson<{ decision_id: string }[]>(['pending'], env))
    await cliJson(['decide', p.decision_id, 'archive'], env);

  const listed = await runCli(['rules'], env);
  expect(listed.stdout).toMatch(/Proposed \(not applied until you accept/);
  expect(listed.stdout).toContain('Anything from acme.example → archive');
  expect(listed.stdout).toContain('archive for ana@acme.example, bo@acme.example');

  const proposals = await cliJson<{ id: string; status: string; evidence: { sender: string }[] }[]>(
    ['rules', 'proposals'],
    env,
  );
  expect(proposals).toHaveLength(1);
  expect(proposals[0]).toMatchObject({ status: 'proposed', domain: 'acme.example', action: 'archive' });
  expect(proposals[0]!.evidence.map((e) => e.sender).sort()).toEqual(['ana@acme.example', 'bo@acme.example']);

  const before = await cliJson<unknown[]>(['rules'], env);
  const bad = await runCli(['rules', 'accept', 'prop_nope'], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr.trim().split('\n')).toEqual([expect.stringContaining('no proposal "prop_nope"')]);
  expect(await cliJson<unknown[]>(['rules'], env)).toEqual(before);

  const rule = await cliJson<{ id: string; source: string; match: object; note: string }>(
    ['rules', 'accept', proposals[0]!.id],
    env,
  );
  expect(rule).toMatchObject({ source: 'you', match: { domain: 'acme.example' }, action: 'archive' });
  expect(rule.note).toContain('bo@acme.example');
  const again = await runCli(['rules', 'accept', proposals[0]!.id], env);
  expect(again.code).not.toBe(0);
  expect(again.stderr).toMatch(/already accepted/);
  expect(await cliJson<unknown[]>(['rules', 'proposals'], env)).toEqual([]);
  await fs.rm(dir, { recursive: true, force: true });
});

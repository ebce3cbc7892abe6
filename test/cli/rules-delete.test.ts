/**
 * `handoff rules`: each rule says how often it fired and when last (`--json`: `fired`,
 * `last_fired_at`); `rules delete` says which rule it deleted and how to undo it, and
 * `rules restore` brings it back, firing again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';

interface RuleJson {
  id: string;
  fired: number;
  last_fired_at: string | null;
}

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

it('counts firings, and deleting says which rule went and how to bring it back', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-rules-delete-', [
    neutral('ana@partner.example', 'Statement'),
    neutral('ana@partner.example', 'Statement, part two'),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  const added = await cliJson<RuleJson>(
    ['rules', 'add', '--sender', 'ana@partner.example', '--action', 'archive'],
    env,
  );
  expect(added).toMatchObject({ fired: 0, last_fired_at: null });

  const before = Date.now();
  expect(await cliJson(['run', 'inbox'], env)).toMatchObject({ by_memory: 2 });
  const [listed] = await cliJson<RuleJson[]>(['rules'], env);
  expect(listed).toMatchObject({ id: added.id, fired: 2 });
  expect(Date.parse(listed!.last_fired_at!)).toBeGreaterThanOrEqual(before - 1000);
  expect((await runCli(['rules'], env)).stdout).toMatch(/2 times, last \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

  const deleted = await runCli(['rules', 'delete', added.id], env);
  expect(deleted.code).toBe(0);
  expect(deleted.stdout).toContain(`Deleted the rule ${added.id}: sender ana@partner.example → archive.`);
  expect(deleted.stdout).toContain(`handoff rules restore ${added.id}`);
  expect(await cliJson(['rules'], env)).toEqual([]);
  const again = await runCli(['rules', 'delete', added.id], env);
  expect(again.code).not.toBe(0);
  expect(again.stderr).toMatch(/no rule/);

  // While deleted it does not fire: the next message is asked about.
  await writeMaildir(maildir, [neutral('ana@partner.example', 'Statement, part three')]);
  expect(await cliJson(['run', 'inbox'], env)).toMatchObject({ by_memory: 0, deferred: 1 });

  const restored = await cliJson<RuleJson>(['rules', 'restore', added.id], env);
  expect(restored).toMatchObject({ id: added.id, fired: 2 });
  await writeMaildir(maildir, [neutral('ana@partner.example', 'Statement, part four')]);
  expect(await cliJson(['run', 'inbox'], env)).toMatchObject({ by_memory: 1 });
  expect(await cliJson<RuleJson[]>(['rules'], env)).toEqual([
    expect.objectContaining({ id: added.id, fired: 3 }),
  ]);
  await fs.rm(dir, { recursive: true, force: true });
});

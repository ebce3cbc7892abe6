import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';

interface RunJson {
  run_id: string;
  by_memory: number;
  deferred: number;
}
interface StatsJson {
  overall: { by_your_rules: number; by_learned_rules: number; declined: number };
  runs: { run_id: string; by_your_rules: number; by_learned_rules: number }[];
}

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

it('"handled by memory" is one count: run --json, stats and the audit agree when rules act and skip', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-memory-counts-', [
    neutral('ana@partner.example', 'Statement'),
    neutral('bo@vendor.example', 'Account notice'),
    neutral('cy@third.example', 'Survey'),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  await cliJson(['rules', 'add', '--sender', 'cy@third.example', '--action', 'skip'], env);

  // Run 1: your rule skips cy; ana and bo are asked, and the answers teach an action and a skip.
  const first = await cliJson<RunJson>(['run', 'inbox'], env);
  expect(first).toMatchObject({ by_memory: 1, deferred: 2 });
  for (const p of await cliJson<{ decision_id: string; sender: string }[]>(['pending'], env))
    await cliJson(['decide', p.decision_id, p.sender.startsWith('ana') ? 'archive' : 'skip'], env);

  // Run 2: a learned rule archives, a learned rule skips, your rule skips.
  await writeMaildir(maildir, [
    neutral('ana@partner.example', 'Statement again'),
    neutral('bo@vendor.example', 'Account notice again'),
    neutral('cy@third.example', 'Survey again'),
  ]);
  const second = await cliJson<RunJson>(['run', 'inbox'], env);
  expect(second).toMatchObject({ by_memory: 3, deferred: 0 });

  const audit = await cliJson<{ run_id: string; decided_by: string | null }[]>(['audit'], env);
  const byMemory = (runId: string) => audit.filter((e) => e.run_id === runId && e.decided_by === 'memory');
  const stats = await cliJson<StatsJson>(['stats'], env);
  const statsFor = (runId: string) => {
    const row = stats.runs.find((r) => r.run_id === runId)!;
    return row.by_your_rules + row.by_learned_rules;
  };
  for (const run of [first, second]) {
    expect(statsFor(run.run_id)).toBe(run.by_memory);
    expect(byMemory(run.run_id)).toHaveLength(run.by_memory);
  }
  expect(stats.overall).toMatchObject({ by_your_rules: 2, by_learned_rules: 2, declined: 1 }); // bo's answer
  await fs.rm(dir, { recursive: true, force: true });
});

it('rules --json prints item_id and pattern for every rule, null where they do not apply', async () => {
  const { dir, workflowFile } = await cliWorkspace('handoff-rules-json-', [
    neutral('ana@partner.example', 'Hi'),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  await cliJson(['rules', 'add', '--domain', 'vendor.example', '--action', 'archive'], env);
  await cliJson(['run', 'inbox'], env);
  const [pending] = await cliJson<{ decision_id: string; item_id: string }[]>(['pending'], env);
  await cliJson(['decide', pending!.decision_id, 'archive'], env);

  const rules = await cliJson<Record<string, unknown>[]>(['rules'], env);
  expect(rules.find((r) => r.source === 'you')).toMatchObject({
    item_id: null,
    pattern: null,
    decision_id: null,
    superseded_by: null,
  });
  expect(rules.find((r) => r.source === 'learned')).toMatchObject({
    item_id: pending!.item_id,
    pattern: 'Mail from ana@partner.example → archive',
    decision_id: pending!.decision_id,
  });
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * One count everywhere (issue 29): one workspace whose run acts confidently, by your rules and
 * on your answer, asks, and leaves alone (by a rule and by you); the Overview, `handoff stats`
 * (text and --json), the run's API JSON, the run page and the completion notice all show the
 * same numbers, those of shared/runs/counts.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { countsOf, describeCounts, type Counts } from '../../shared/runs/counts.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { createApp } from '../../shared/web/app.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail, NEWSLETTER } from '../support/engine-fixture.ts';

const API_KEY = 'counts-api-key-0123456789';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

/** The number a tile of the Overview shows, by its key. */
function tile(html: string, key: keyof Counts): number {
  const found = new RegExp(
    `tile-${key}">\\s*<span class="tile-title">[^<]*</span>\\s*<span class="tile-number">(\\d+)<`,
  ).exec(html);
  if (!found) throw new Error(`the Overview has no ${key} tile`);
  return Number(found[1]);
}

const unescape = (html: string) => html.replaceAll('&#39;', "'").replaceAll('&amp;', '&');

it('one workspace, every surface, the same numbers: acted (confident, by rules, by you), asked, left alone', async () => {
  // Prepare: the newsletter is archived confidently; your rules archive the vendor's mail and
  // skip the survey; ana and bo are asked: ana's is archived on your answer, bo's left alone.
  const { dir, workflowFile } = await cliWorkspace('handoff-counts-', [
    mail({ ...NEWSLETTER, body: 'This week in digests.\n' }),
    neutral('billing@vendor.example', 'Statement'),
    neutral('survey@third.example', 'Survey'),
    neutral('ana@one.example', 'A question'),
    neutral('bo@two.example', 'Another question'),
  ]);
  dirs.push(dir);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  await cliJson(['rules', 'add', '--sender', 'billing@vendor.example', '--action', 'archive'], env);
  await cliJson(['rules', 'add', '--sender', 'survey@third.example', '--action', 'skip'], env);
  const started = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  expect(started.status).toBe('waiting');
  const pending = await cliJson<{ decision_id: string; sender: string }[]>(['pending'], env);
  expect(pending.map((p) => p.sender).sort()).toEqual(['ana@one.example', 'bo@two.example']);
  const ana = pending.find((p) => p.sender.startsWith('ana'))!;
  const bo = pending.find((p) => p.sender.startsWith('bo'))!;
  await cliJson(['decide', ana.decision_id, 'archive', '--once'], env);
  // The last answer completes the run; its notice is printed by the console notifier.
  const last = await runCli(['decide', bo.decision_id, 'skip', '--once'], env);
  expect(last.code).toBe(0);

  // What the run did, by the one definition.
  const appEnv = loadEnv({ ...env, HANDOFF_API_KEY: API_KEY });
  const engine = engineFromEnv(appEnv, { notifier: { notify: async () => {} } });
  const run = await getRun(engine.store, started.run_id);
  expect(run.status).toBe('completed');
  const counts = countsOf(run.counts);
  expect(counts).toEqual({
    acted: 3,
    confident: 1,
    by_rules: 1,
    by_your_rules: 1,
    by_learned_rules: 0,
    by_you: 1,
    asked: 2,
    left_alone: 2,
    left_alone_by_rules: 1,
    failed: 0,
  });
  const sentence = describeCounts(counts);
  expect(sentence).toBe(
    '3 acted (1 confident, 1 by your rules, 1 by you), 2 asked, 2 left alone (1 by rules)',
  );

  // The notice.
  expect(`${last.stdout}\n${last.stderr}`).toContain(sentence);

  // `handoff stats`: --json (its counts) and text (the same numbers, in the same columns).
  const stats = await cliJson<{ counts: Record<string, Counts>; runs: { run_id: string; counts: Counts }[] }>(
    ['stats'],
    env,
  );
  for (const period of ['today', 'this_week', 'overall']) expect(stats.counts[period]).toEqual(counts);
  expect(stats.runs.find((r) => r.run_id === run.id)?.counts).toEqual(counts);
  const text = await runCli(['stats'], env);
  expect(text.code).toBe(0);
  expect(text.stdout.split('\n')[0]).toMatch(
    /acted\s+confident\s+by rules\s+by you\s+asked\s+left alone\s+failed/i,
  );
  const row = text.stdout.split('\n').find((l) => l.trim().startsWith('overall'))!;
  expect(row.trim().split(/\s+/).slice(1).map(Number)).toEqual([
    counts.acted,
    counts.confident,
    counts.by_rules,
    counts.by_you,
    counts.asked,
    counts.left_alone,
    counts.failed,
  ]);

  // The web app over the same workspace: the run's API JSON, its page, the Overview.
  const app = createApp({ engine, env: appEnv, runner: createRunLauncher(engine) });
  const api = await app.request(`/api/runs/${run.id}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
  expect(api.status).toBe(200);
  expect(((await api.json()) as { counts: Counts }).counts).toEqual(counts);

  const page = await app.request(`/runs/${run.id}`);
  expect(page.status).toBe(200);
  expect(unescape(await page.text())).toContain(sentence);

  const overview = await app.request('/');
  expect(overview.status).toBe(200);
  const html = unescape(await overview.text());
  expect(html).toContain(`Today: ${sentence}.`);
  expect(html).toContain(`This week: ${sentence}.`);
  for (const key of ['acted', 'confident', 'by_rules', 'by_you', 'asked', 'left_alone'] as const)
    expect({ key, shown: tile(html, key) }).toEqual({ key, shown: counts[key] });
});

/**
 * The demo that shows learning: after the first run's questions are answered, "Deliver
 * more demo mail" brings a fresh day from the same senders, and the next run handles the
 * ones the person answered about by the rules those answers taught, and says so.
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { describeCounts } from '../../shared/runs/counts.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { demoMaildirPath } from '../../shared/sources/maildir/demo-more.ts';
import { createApp } from '../../shared/web/app.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { pageClient, type PageClient } from './page-client.ts';
import { makeEngine } from './support.ts';
import { promises as fs } from 'node:fs';

let made: Awaited<ReturnType<typeof makeEngine>>;
let page: PageClient;

beforeEach(async () => {
  made = await makeEngine();
  const maildir = demoMaildirPath(made.env.HANDOFF_STATE_DIR);
  await createDemoMaildir(maildir);
  await saveWorkflow(made.engine.store, parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml'));
  page = pageClient(
    createApp({ engine: made.engine, env: made.env, runner: createRunLauncher(made.engine) }),
  );
});
afterEach(() => fs.rm(made.dir, { recursive: true, force: true }));

it('delivers a fresh day from the Overview, and the next run acts by the learned rules without asking', async () => {
  const first = await startRun(made.engine, 'inbox-triage', { kind: 'manual', detail: null });
  expect(first.status).toBe('waiting');
  const asked = await listPending(made.engine.store);
  for (const d of asked)
    await decide(
      made.engine,
      d.id,
      d.suggested_action === 'skip' ? 'archive' : d.suggested_action,
      'always this for this sender',
    );
  expect((await listRules(made.engine.store)).length).toBeGreaterThan(0);

  // Nothing new: the Overview offers more demo mail.
  const skipped = await startRun(made.engine, 'inbox-triage', { kind: 'manual', detail: null });
  expect(skipped.status).toBe('skipped');
  const overview = await (await page.get('/')).text();
  expect(overview).toContain('action="/demo/more"');

  const delivered = await page.submit('/demo/more', {}, '/');
  expect(delivered.status).toBe(303);
  const location = delivered.headers.get('location')!;
  const params = new URL(location, 'http://x').searchParams;
  expect(Number(params.get('delivered'))).toBeGreaterThanOrEqual(12);
  expect(Number(params.get('answered'))).toBeGreaterThan(0);
  expect(await (await page.get(location)).text()).toMatch(/from senders you answered about\. Press Run now/);

  const second = await startRun(made.engine, 'inbox-triage', { kind: 'manual', detail: null });
  expect(second.counts.by_learned_rules).toBeGreaterThan(0);
  expect(describeCounts(second.counts)).toMatch(/\d+ by learned rules/);
  // It asks less than the first run did.
  expect(second.counts.deferred).toBeLessThan(first.counts.deferred);
});

it('has no button where there is no demo inbox', async () => {
  await fs.rm(demoMaildirPath(made.env.HANDOFF_STATE_DIR), { recursive: true, force: true });
  const elsewhere = parseWorkflow(demoWorkflowYaml('/tmp/not-the-demo'), 'inbox-triage.yaml');
  await saveWorkflow(made.engine.store, elsewhere);
  expect(await (await page.get('/')).text()).not.toContain('action="/demo/more"');
  expect((await page.submit('/demo/more', {}, '/')).status).toBe(404);
});

/**
 * The Artifacts and Schedules pages in real headless Chromium: a run's draft and report
 * found from the sidebar, read as text and downloaded as a file; a schedule paused and
 * resumed with its buttons. Each page passes axe (no serious or critical violation) and
 * needs nothing inline (no CSP complaint).
 */
import { promises as fs } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { listArtifacts } from '../../shared/artifacts/artifacts.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { getScheduleState } from '../../shared/schedules/schedules.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { addDemoWorkflow } from '../web/support.ts';
import { A11yChecker, launchBrowser, screenshot, startServer, watchCsp, type Served } from './support.ts';

let browser: Browser;
let served: Served;
let context: BrowserContext;
let page: Page;
let cspProblems: string[];
let a11y: A11yChecker;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  page = await context.newPage();
  cspProblems = watchCsp(page);
  a11y = new A11yChecker(browser);
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
});

async function expectAccessible(url: string): Promise<void> {
  expect(await a11y.seriousViolations(url, context)).toEqual([]);
}

it("finds a run's draft from the sidebar, reads it as text and downloads it", async () => {
  await page.goto(served.url); // the first start makes the demo
  const engine = served.engine;
  const launcher = createRunLauncher(engine);
  const run = await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null });
  launcher.launch(run);
  await launcher.idle();
  const [first, ...rest] = await listPending(engine.store);
  await decide(engine, first!.id, 'draft_reply', null, { edits: { body: 'Thanks, <b>noted</b>.' } });
  for (const d of rest) await decide(engine, d.id, 'skip', null);
  await launcher.idle();
  const artifacts = await listArtifacts(engine.store, { runId: run.id });
  const draft = artifacts.find((a) => a.kind === 'draft')!;
  expect(draft.decision_id).toBe(first!.id);

  await page.goto(served.url);
  await page.locator('#nav').getByRole('link', { name: 'Artifacts' }).click();
  await page.waitForURL('**/artifacts');
  expect(await page.locator('h1').textContent()).toBe('Artifacts');
  expect(await page.locator('[data-artifact-id]').count()).toBe(artifacts.length);
  await screenshot(page, 'artifacts');
  await expectAccessible(page.url());

  await page.getByRole('link', { name: draft.title, exact: true }).click();
  await page.waitForURL(`**/artifacts/${encodeURIComponent(draft.id)}`);
  const body = page.locator('[data-artifact-body]');
  expect(await body.textContent()).toBe(draft.body!.replace(/\r\n/g, '\n')); // HTML reads CRLF as LF
  expect(await body.locator('b').count()).toBe(0); // the reply's markup is text, not markup
  expect(await page.locator('[data-provenance]').textContent()).toContain(first!.id);
  await screenshot(page, 'artifact');
  await expectAccessible(page.url());

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download', exact: true }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${draft.id.replace(/[^A-Za-z0-9._-]/g, '_')}.eml`);
  expect(await fs.readFile((await download.path())!, 'utf8')).toBe(draft.body);

  // The run inspector lists what the run produced.
  await page.goto(`${served.url}/runs/${run.id}`);
  expect(await page.locator('[data-run-artifacts] [data-artifact-id]').count()).toBe(artifacts.length);
});

it('pauses and resumes a schedule with its buttons, the next firings read in the profile time zone', async () => {
  await addDemoWorkflow(served.engine, served.env.HANDOFF_STATE_DIR, {
    id: 'morning',
    name: 'Morning digest',
    trigger: { schedule: 'cron(0 8 ? * MON-FRI *)' },
  });
  await saveProfile(served.engine.store, { time_zone: 'Europe/Paris' });
  await page.locator('#nav').getByRole('link', { name: 'Schedules' }).click();
  await page.waitForURL('**/schedules');
  const row = page.locator('[data-schedule="morning"]');
  expect(await row.locator('.firings li').count()).toBe(3);
  expect(await row.locator('.firings li').first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} 08:00 CES?T$/);
  expect(await page.locator('main').textContent()).toContain('Europe/Paris');
  await expectAccessible(page.url());

  await row.getByRole('button', { name: 'Pause Morning digest' }).click();
  await page.waitForURL(/paused=morning/);
  expect(await page.locator('.flash-ok').textContent()).toContain('Paused the schedule of morning.');
  expect((await row.locator('[data-schedule-state]').textContent())?.trim()).toMatch(/^paused/);
  expect(await row.locator('.firings').count()).toBe(0);
  expect((await getScheduleState(served.engine.store, 'morning'))?.paused).toBe(true);
  await screenshot(page, 'schedules');
  await expectAccessible(page.url());

  await row.getByRole('button', { name: 'Resume Morning digest' }).click();
  await page.waitForURL(/resumed=morning/);
  expect((await getScheduleState(served.engine.store, 'morning'))?.paused).toBe(false);
  expect(await row.locator('.firings li').count()).toBe(3);
  expect(cspProblems).toEqual([]);
});

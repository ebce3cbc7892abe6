/**
 * The reply draft on the decision page, in real headless Chromium: the person reads it in a
 * text box, rewrites it, and the saved draft is exactly what they wrote, never their note.
 * The page passes axe (no serious or critical violation).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { decide } from '../../shared/runs/decide.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { A11yChecker, launchBrowser, startServer, type Served } from './support.ts';

let browser: Browser;
let served: Served;
let context: BrowserContext;
let page: Page;
let a11y: A11yChecker;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  a11y = new A11yChecker(browser);
});
afterAll(async () => {
  await browser?.close();
  await served?.close();
});

it('shows the reply draft in a text box, and saves the rewritten reply exactly, without the note', async () => {
  await page.goto(served.url); // the first start makes the demo
  const engine = served.engine;
  const launcher = createRunLauncher(engine);
  launcher.launch(await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null }));
  await launcher.idle();
  const question = (await listPending(engine.store)).find((d) =>
    d.drafts?.some((w) => w.action === 'draft_reply'),
  )!;
  const drafted = question.drafts!.find((w) => w.action === 'draft_reply')!.body;

  await page.goto(`${served.url}/decide/${encodeURIComponent(question.id)}`);
  const box = page.locator('textarea[name="body:draft_reply"]');
  if (!(await box.isVisible()))
    await page.locator('details.draft summary', { hasText: 'draft reply' }).first().click();
  expect(await box.inputValue()).toBe(drafted);
  expect(await a11y.seriousViolations(page.url(), context)).toEqual([]);

  await box.fill('Thanks for the note.\nI will call you on Monday.\n\nAna');
  await page.locator('#note').fill('partners get a call, not a mail');
  await page.locator('button[name="action"][value="draft_reply"]').click();
  await page.waitForURL((url) => url.search.includes('answered=')); // on to the next question, or the run

  expect((await getDecision(engine.store, question.id)).answer).toMatchObject({
    action: 'draft_reply',
    note: 'partners get a call, not a mail',
    body: 'Thanks for the note.\nI will call you on Monday.\n\nAna',
  });
  for (const d of await listPending(engine.store)) await decide(engine, d.id, 'skip', null);
  await launcher.idle();
  const source = (await getWorkflow(engine.store, 'inbox-triage')).source as { path: string };
  const dir = path.join(source.path, '.Drafts', 'cur');
  const drafts = await Promise.all(
    (await fs.readdir(dir)).map(async (n) => simpleParser(await fs.readFile(path.join(dir, n)))),
  );
  const reply = drafts.find((d) => d.inReplyTo === question.item_id)!;
  expect(reply.text!.replace(/\r\n/g, '\n').split(/\n\nOn .+ wrote:\n/)[0]).toBe(
    'Thanks for the note.\nI will call you on Monday.\n\nAna',
  );
  expect(reply.text).not.toContain('partners get a call');
});

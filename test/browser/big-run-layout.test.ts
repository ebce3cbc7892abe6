/**
 * The pages of a big run at 390, 768 and 1280 px, in real headless Chromium: a 1,000-item
 * run's page, one of its questions and Activity with 500 questions waiting never scroll
 * sideways; on a phone the question's answer bar stays on screen and Run now comes first.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateInbox } from '../../bench/generate-mail.ts';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { launchBrowser, screenshot, startServer, type Served } from './support.ts';

const WIDTHS = [390, 768, 1280] as const;
const ITEMS = 1000;
const WAITING = 500;

let browser: Browser;
let served: Served;
let runId: string;
let question: string;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  const engine = served.engine;
  await writeMaildir(
    path.join(served.env.HANDOFF_STATE_DIR, 'demo', 'Maildir'),
    generateInbox(ITEMS).messages,
  );
  const run = await startRun(engine, 'inbox-triage', { kind: 'manual', detail: null });
  expect(run.status).toBe('waiting');
  runId = run.id;
  const asked = await listPending(engine.store);
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.length).toBeLessThan(WAITING);
  question = asked[0]!.id;
  await seedWaiting(engine.store, run, asked[0]!, WAITING - asked.length, 3);
  expect(await listPending(engine.store)).toHaveLength(WAITING);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

/** How far the page scrolls sideways: 0 when it fits its width. */
function sideways(page: Page): Promise<number> {
  return page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;
}

describe('a 1,000-item run and 500 waiting questions', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px no page scrolls sideways`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 860 } });
      try {
        const page = await context.newPage();
        for (const url of [
          `/runs/${runId}`,
          `/runs/${runId}?trace=2`,
          '/activity',
          `/decide/${question}`,
          '/',
          '/runs',
        ]) {
          await page.goto(`${served.url}${url}`);
          expect({ url, sideways: await sideways(page) }).toEqual({ url, sideways: 0 });
        }
        await page.goto(`${served.url}/activity`);
        expect(await page.locator('#nav [data-pending-badge]').textContent()).toMatch(/500/);
        await page.goto(`${served.url}/runs/${runId}`);
        await screenshot(page, `big-run-${width}`);
      } finally {
        await context.close();
      }
    });
  }

  it("at 390 px the question's answer bar is on screen and Run now comes before the tiles", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(`${served.url}/decide/${question}`);
      const bar = await page.locator('[data-answer-bar]').boundingBox();
      expect(bar).not.toBeNull();
      expect(bar!.y).toBeGreaterThanOrEqual(0);
      expect(bar!.y + bar!.height).toBeLessThanOrEqual(860);
      await page.mouse.wheel(0, 2000);
      const scrolled = await page.locator('[data-answer-bar]').boundingBox();
      expect(scrolled!.y + scrolled!.height).toBeLessThanOrEqual(860);

      await page.goto(served.url);
      const runNow = await page
        .getByRole('button', { name: /^Run now/ })
        .first()
        .boundingBox();
      const tiles = await page.locator('.tiles').boundingBox();
      expect(runNow!.y).toBeLessThan(tiles!.y);
      expect(runNow!.y + runNow!.height).toBeLessThanOrEqual(860);
    } finally {
      await context.close();
    }
  });
});

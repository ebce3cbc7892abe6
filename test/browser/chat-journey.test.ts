/**
 * A newcomer builds a workflow in words, in real headless Chromium: describe it in the Chat
 * page → a preview table (the Maildir untouched, byte for byte) → yes → saved and listed →
 * "run it now" → yes → the run's questions as decision cards in the chat → answered there →
 * the run completes. The server restarts between the steps; the chat and its history stay.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Env } from '../../shared/config/env.ts';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { listWorkflows } from '../../shared/workflows/repository.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { hashTree } from '../support/hash-tree.ts';
import { makeEngine } from '../web/support.ts';
import { A11yChecker, cssValue, launchBrowser, screenshot, watchCsp } from './support.ts';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
let env: Env;
let server: RunningServer | undefined;
let cspProblems: string[];
const AMBER = 'rgb(245, 158, 11)';
const ACCENT = 'rgb(29, 78, 216)';

/** A fresh process's view of the same state directory: a new engine and a new server. */
async function restart(): Promise<string> {
  await server?.close();
  const engine = engineFromEnv(env, { notifier: { notify: async () => {} } });
  server = await serve({ env, engine, port: 0, print: () => {} });
  return server.url;
}

const store = () => engineFromEnv(env, { notifier: { notify: async () => {} } }).store;

beforeAll(async () => {
  const made = await makeEngine();
  dir = made.dir;
  env = made.env;
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  cspProblems = watchCsp(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the Chat page, as a newcomer builds a workflow', () => {
  let chatUrl: string;
  const maildir = () => path.join(env.HANDOFF_STATE_DIR, 'demo', 'Maildir');

  it('describes a workflow and gets a preview table; the Maildir is unchanged, byte for byte', async () => {
    const url = await restart(); // the first start writes the demo Maildir and workflow
    const before = await hashTree(maildir());
    await page.goto(url);
    await page.locator('#nav').getByRole('link', { name: 'Chat' }).click();
    await page.waitForURL(/\/chat$/);
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.waitForURL(/\/chat\/chat_[a-z0-9_]+$/);
    // The page follows the chat's feed as soon as it opens, so even the first turn streams.
    expect(await page.locator('[data-chat-id]').getAttribute('data-live')).toBe('sse');
    await page
      .getByLabel('Message')
      .fill(
        'every weekday at 8, go through my inbox, archive newsletters, ask me about anything from customers',
      );
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\/chat\/chat_[a-z0-9_]+$/);
    chatUrl = new URL(page.url()).pathname;

    expect(await page.locator('[data-handoff]').first().textContent()).toContain('builder');
    const rows = page.locator('[data-preview] tbody tr');
    expect(await rows.count()).toBe(10);
    expect(await page.locator('[data-preview] [data-verdict="ask"]').count()).toBeGreaterThan(0);
    const card = page.locator('[data-confirm]');
    expect(await card.textContent()).toMatch(/Save workflow .*inbox-triage-2/);
    // Amber means a decision waiting for you and nothing else: the confirm card and its Yes are blue.
    expect(await cssValue(card.getByRole('button', { name: 'Yes', exact: true }), 'background-color')).toBe(
      ACCENT,
    );
    expect(await cssValue(card, 'border-left-color')).toBe(ACCENT);
    expect(await hashTree(maildir())).toEqual(before);
    expect((await listWorkflows(store())).map((w) => w.id)).toEqual(['inbox-triage']);
    await screenshot(page, 'chat-preview');
    // On a phone the chat fits: nothing scrolls sideways (the preview table scrolls in its own box).
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }
      ).document;
      return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('after a restart the chat is still there; "yes" saves the workflow and it is listed', async () => {
    const url = await restart();
    await page.goto(`${url}/chat`);
    await page.getByRole('link', { name: /every weekday at 8/ }).click();
    expect(await page.locator('[data-preview] tbody tr').count()).toBe(10);
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.waitForURL(new RegExp(`${chatUrl}$`));
    expect(await page.locator('[data-saved]').getAttribute('data-saved')).toBe('inbox-triage-2');
    expect(await page.locator('[data-confirm]').count()).toBe(0);
    expect((await listWorkflows(store())).map((w) => w.id)).toEqual(['inbox-triage', 'inbox-triage-2']);
    await page.goto(url);
    expect(await page.locator('main').textContent()).toContain('inbox-triage-2');
  });

  it('"run it now", yes, and the questions come as decision cards answered in the chat; the run completes', async () => {
    const url = await restart();
    await page.goto(`${url}${chatUrl}`);
    await page.getByLabel('Message').fill('run it now');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(new RegExp(`${chatUrl}$`));
    expect(await page.locator('[data-confirm]').textContent()).toMatch(/Run .*inbox-triage-2.* now/);
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.waitForURL(new RegExp(`${chatUrl}$`));
    const runId = await page.locator('[data-run]').last().getAttribute('data-run');
    expect((await getRun(store(), runId!)).status).toBe('waiting');
    const cards = page.locator('form[data-decision]');
    const asked = await cards.count();
    expect(asked).toBeGreaterThan(0);
    expect(await cssValue(cards.first(), 'border-left-color')).toBe(AMBER);
    await screenshot(page, 'chat-decisions');
    expect(await new A11yChecker(browser).seriousViolations(page.url(), context)).toEqual([]);

    await restart(); // answered after another restart: the decision cards come back from the store
    for (let left = asked; left > 0; left--) {
      await page.goto(`${server!.url}${chatUrl}`);
      await page.locator('form[data-decision]').first().getByRole('button', { name: 'skip' }).click();
      await page.waitForURL(new RegExp(`${chatUrl}$`));
      expect(await page.locator('form[data-decision]').count()).toBe(left - 1);
    }
    expect((await getRun(store(), runId!)).status).toBe('completed');
    expect(await page.locator('[data-run]').last().textContent()).toMatch(/completed/);
    expect((await listPending(store())).filter((d) => d.run_id === runId)).toEqual([]);

    // A turn taken elsewhere (another tab, the API) streams into the open page over SSE; the
    // stream resumes after the last event the page shows, so nothing emitted meanwhile is missed.
    await page.goto(`${server!.url}${chatUrl}`);
    const chatId = chatUrl.split('/').pop()!;
    await sendMessage(engineFromEnv(env, { notifier: { notify: async () => {} } }), chatId, 'hello');
    await page.locator('[data-live-turn]').waitFor({ state: 'visible' });
    await page.waitForFunction(() => {
      const doc = (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document;
      return doc.querySelector('[data-live-text]')?.textContent.includes('I can build a workflow') === true;
    });
    await page.locator('[data-chat-id][data-done]').waitFor({ state: 'attached' });
    expect(cspProblems).toEqual([]);
    expect(await new A11yChecker(browser).seriousViolations(page.url(), context)).toEqual([]);
  });
});

/**
 * A new user's first session, in real headless Chromium: run the demo workflow from
 * the overview, see the amber badge, read a question, answer every one with a note
 * (one with JavaScript off), and watch a second tab's run inspector fill in live.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { readStoredSettings } from '../../shared/settings/settings.ts';
import {
  A11yChecker,
  cssValue,
  launchBrowser,
  screenshot,
  startServer,
  watchCsp,
  type Served,
} from './support.ts';

let browser: Browser;
let served: Served;
let context: BrowserContext;
let page: Page;
let cspProblems: string[];
let a11y: A11yChecker;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  cspProblems = watchCsp(page);
  a11y = new A11yChecker(browser);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const AMBER = 'rgb(245, 158, 11)';
const badge = (p: Page) => p.locator('#nav [data-pending-badge]');
const runStatus = (p: Page) => p.locator('[data-run-status]');

async function expectAccessible(url: string): Promise<void> {
  expect(await a11y.seriousViolations(url, context)).toEqual([]);
}

describe('the web app, as a new user meets it', () => {
  let runId: string;

  it('runs the demo from the overview and shows the waiting questions in amber', async () => {
    await page.goto(served.url);
    expect(await page.locator('h1').textContent()).toBe('Overview');
    expect(await badge(page).count()).toBe(0);

    await page.getByRole('button', { name: /Run now/ }).click();
    await page.waitForURL(/\/runs\/run_[^/?]+$/);
    runId = new URL(page.url()).pathname.split('/').pop()!;
    // The inspector fills in live: the run pauses for the person without a reload.
    await page.locator('[data-run-status]', { hasText: 'waiting' }).waitFor();
    await page.locator('[data-node="executor"].node-paused').waitFor();
    await badge(page).waitFor();
    const pending = (await listPending(served.engine.store)).length;
    expect(pending).toBeGreaterThan(1);
    expect((await badge(page).textContent())?.trim()).toMatch(new RegExp(`^${pending}\\b`));
    expect(await cssValue(badge(page), 'backgroundColor')).toBe(AMBER);
    expect(await page.locator('[data-trace] tr').count()).toBeGreaterThan(10);
    expect(await page.locator('[data-trace]').textContent()).toContain('submit_action');
    await screenshot(page, 'inspector-waiting', { fullPage: false }); // the trace is long

    await page.goto(served.url);
    const callout = page.locator('.callout-amber .pending');
    expect(await callout.textContent()).toBe(`${pending} pending decisions`);
    expect(await cssValue(callout, 'borderTopColor')).toBe(AMBER);
    expect(await page.locator('.tile-asked .tile-number').textContent()).toBe(String(pending));
    await screenshot(page, 'overview');
    await expectAccessible(served.url);

    await page.goto(`${served.url}/activity`);
    expect(await page.locator('.question').count()).toBe(pending);
    expect(await cssValue(page.locator('.question .pending').first(), 'borderTopColor')).toBe(AMBER);
    await screenshot(page, 'activity');
    await expectAccessible(`${served.url}/activity`);
  });

  it('shows one question full-screen: the whole message, the reasoning, the gauge, the options', async () => {
    const pending = await listPending(served.engine.store);
    const first = pending.find((d) => d.subject.includes('password'))!; // the demo's phishing mail: it has a link
    expect(first).toBeDefined();
    await page.goto(`${served.url}/activity`);
    await page.getByRole('link', { name: first.subject }).click();
    await page.waitForURL(`**/decide/${first.id}`);
    expect(await page.locator('h1').textContent()).toBe(first.subject);
    expect(await page.locator('.eyebrow .pending').textContent()).toBe('Waiting for you');
    expect(await page.locator('blockquote.verbatim').textContent()).toBe(first.reasoning);
    const body = (await page.locator('[data-mail-body]').textContent()) ?? '';
    expect(body.length).toBeGreaterThan(first.snippet.length - 5); // read from the Maildir, not the excerpt
    expect(await page.locator('.gauge figcaption').textContent()).toContain('against the threshold 0.70');
    expect(await page.locator('.after .pending').textContent()).toMatch(/^and \d+ more after this$/);
    expect(await page.locator('[data-mail-body] .link-host').first().textContent()).toBe(
      'goes to northwlnd-support.example',
    );
    await screenshot(page, 'decision');
    await expectAccessible(page.url());
  });

  it('answers a question with JavaScript off: a plain form POST', async () => {
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    try {
      const tab = await noJs.newPage();
      const pending = await listPending(served.engine.store);
      const target = pending.find((d) => d.subject.includes('Trackly'))!; // the demo's product newsletter
      await tab.goto(`${served.url}/decide/${target.id}`);
      await tab.getByLabel(/Note/).fill('newsletters from tools we pay for can go');
      await tab.getByRole('button', { name: 'archive', exact: true }).click();
      await tab.waitForURL(/answered=/);
      expect(await tab.locator('.flash-ok').textContent()).toContain(
        `Recorded for “${target.subject}”: Archived.`,
      );
      expect((await getDecision(served.engine.store, target.id)).answer).toMatchObject({
        action: 'archive',
        note: 'newsletters from tools we pay for can go',
        by: 'human',
      });
    } finally {
      await noJs.close();
    }
  });

  it('answers the rest with notes while a second tab watches the run finish live', async () => {
    // Answer all but the last on the decision screen; each answer goes on to the next question.
    let remaining = await listPending(served.engine.store);
    await page.goto(`${served.url}/decide/${remaining[0]!.id}`);
    while (remaining.length > 1) {
      const answering = new URL(page.url()).pathname;
      await page.getByLabel(/Note/).fill(`note ${remaining.length}`);
      await page.getByRole('button', { name: /Skip/ }).click();
      await page.waitForURL((url) => url.pathname !== answering && url.search.includes('answered='));
      remaining = await listPending(served.engine.store);
    }
    expect(await page.locator('.after').textContent()).toContain('No other questions waiting');

    // A second tab opens the inspector of the waiting run.
    const watcher = await context.newPage();
    const watcherCsp = watchCsp(watcher);
    await watcher.goto(`${served.url}/runs/${runId}`);
    expect(await runStatus(watcher).textContent()).toBe('waiting');
    await watcher.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));

    // The first tab answers the last question; the run resumes and completes.
    await page.getByLabel(/Note/).fill('I read these myself');
    await page.getByRole('button', { name: /Skip/ }).click();
    await page.waitForURL(new RegExp(`/runs/${runId}\\?answered=`));
    expect(await runStatus(page).textContent()).toBe('completed');
    expect(await badge(page).count()).toBe(0);
    expect((await getRun(served.engine.store, runId)).status).toBe('completed');

    // The watching tab shows it without navigating: status, graph and badge.
    await watcher.locator('[data-run-status]', { hasText: 'completed' }).waitFor({ timeout: 10_000 });
    await watcher.locator('[data-node="completer"].node-done').waitFor();
    expect(
      await watcher.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    // The badge is updated by its own poll of the pending count, a moment after the status.
    await badge(watcher).waitFor({ state: 'detached', timeout: 10_000 });
    expect(await badge(watcher).count()).toBe(0);
    expect(await watcher.locator('[data-trace]').textContent()).toContain('I read these myself');
    await screenshot(watcher, 'inspector', { fullPage: false });
    await expectAccessible(watcher.url());
    expect(watcherCsp).toEqual([]);
    await watcher.close();
  });

  it('lists what it learned, where from, and deletes a rule after asking, with an Undo', async () => {
    const before = await listRules(served.engine.store);
    expect(before.length).toBeGreaterThan(0);
    await page.goto(`${served.url}/memory`);
    expect(await page.locator('.rule').count()).toBe(before.length);
    expect(await page.locator('main').textContent()).toContain('newsletters from tools we pay for can go');
    await screenshot(page, 'memory');
    await expectAccessible(`${served.url}/memory`);
    const first = page.locator('.rule').first();
    const named = (await first.locator('.rule-pattern').textContent())!.trim();
    expect(await first.locator('[data-fired]').textContent()).toMatch(/never fired|fired \d+ times? · last/);
    await first.getByRole('link', { name: /Delete/ }).click();
    // Delete asks first, naming the rule; nothing is deleted yet.
    await page.waitForURL(/\/memory\/[^/]+\/delete$/);
    expect((await page.locator('[data-rule]').textContent())!.trim()).toBe(named);
    expect((await listRules(served.engine.store)).length).toBe(before.length);
    await expectAccessible(page.url());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/deleted=/);
    expect(await page.locator('[data-deleted]').textContent()).toContain(`Deleted the rule: ${named}`);
    expect((await listRules(served.engine.store)).length).toBe(before.length - 1);
    // Undo brings it back.
    await page.locator('[data-deleted]').getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL(/restored=/);
    expect(await page.locator('.flash-ok').first().textContent()).toContain(`Restored the rule: ${named}`);
    expect((await listRules(served.engine.store)).length).toBe(before.length);
  });

  it('changes the threshold from Settings, stored without editing a file', async () => {
    await page.goto(`${served.url}/settings`);
    await page.getByLabel('Threshold').fill('0.85');
    expect(await page.locator('[data-range-output]').textContent()).toBe('0.85');
    await page.getByLabel('Notify channel').selectOption('slack');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // Slack with no token or channel would fail every notice: refused in one line, nothing saved.
    expect(await page.locator('#notify_channel-error').textContent()).toMatch(
      /^Slack needs a bot token and a channel: set SLACK_BOT_TOKEN and SLACK_CHANNEL on the Credentials page/,
    );
    expect(await readStoredSettings(served.engine.store)).toBeNull();
    // Set them on the Credentials page (write-only), then save again.
    await page.goto(`${served.url}/credentials`);
    for (const [name, value] of [
      ['SLACK_BOT_TOKEN', 'xoxb-journey-token'],
      ['SLACK_CHANNEL', 'C0JOURNEY'],
    ] as const) {
      await page.locator('#name-new').fill(name);
      await page.locator('#value-new').fill(value);
      await page.getByRole('button', { name: 'Set credential' }).click();
      await page.waitForURL(new RegExp(`set=${name}`));
      expect(await page.locator('main').textContent()).not.toContain(value);
    }
    await page.goto(`${served.url}/settings`);
    await page.getByLabel('Threshold').fill('0.85');
    await page.getByLabel('Notify channel').selectOption('slack');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/saved=1/);
    expect(await page.locator('.flash-ok').textContent()).toContain('Saved');
    expect(await readStoredSettings(served.engine.store)).toMatchObject({
      confidence_threshold: 0.85,
      notify_channel: 'slack',
      ui_base_url: null,
    });
    await screenshot(page, 'settings');
    await expectAccessible(`${served.url}/settings`);
  });

  it('lists every run, and needed nothing inline (no CSP complaint on any page)', async () => {
    await page.goto(`${served.url}/runs`);
    expect(await page.locator(`a[href="/runs/${runId}"]`).count()).toBe(1);
    await screenshot(page, 'runs');
    await expectAccessible(`${served.url}/runs`);
    expect(cspProblems).toEqual([]);
  });
});

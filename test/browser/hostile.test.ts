/**
 * What a hostile message and a stranger can do to the web app, in real headless
 * Chromium: nothing runs, nothing loads, links are inert and show their real host;
 * with a password set, nothing opens without logging in.
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { A11yChecker, launchBrowser, screenshot, startServer, watchCsp, type Served } from './support.ts';

const TEXT_ATTACK = [
  'Please verify your account today.',
  '<script>window.__pwned = "script"</script>',
  '<img src="https://evil.example/pixel.png" onerror="window.__pwned = \'onerror\'">',
  '<a href="javascript:window.__pwned=1">Log in</a>',
  'Log in here: https://paypa1.example/login',
].join('\n');

/** An HTML-only message: mailparser turns it into text; its real link targets must show. */
const HTML_ATTACK = [
  'From: "PayPal Security" <security@paypa1.example>',
  'To: alex.morgan@northwind.example',
  'Subject: Your account is locked - verify your account',
  'Date: Tue, 11 Mar 2025 10:00:00 +0000',
  'Message-ID: <html-attack@paypa1.example>',
  'MIME-Version: 1.0',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Please verify your account at <a href="https://paypa1.example/login">https://paypal.com/login</a>.</p>',
  '<script>window.__pwned = "html"</script><img src="https://evil.example/track.png">',
  '<a href="https://xn--pypal-4ve.example/">Support</a>',
  '',
].join('\r\n');

let browser: Browser;
let served: Served;
let a11y: A11yChecker;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  a11y = new A11yChecker(browser);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

describe('a hostile message on the decision screen', () => {
  it('is shown inert: no script runs, no remote request is made, the text is visible escaped', async () => {
    const maildir = path.join(served.env.HANDOFF_STATE_DIR, 'demo', 'Maildir');
    await writeMaildir(maildir, [
      {
        from: 'security@paypa1.example',
        fromName: 'PayPal <script>alert(1)</script>',
        to: 'alex.morgan@northwind.example',
        subject: 'Account suspended <b>now</b>',
        body: TEXT_ATTACK,
        date: new Date('2025-03-11T09:00:00Z'),
        messageId: '<text-attack@paypa1.example>',
      },
      HTML_ATTACK,
    ]);
    await startRun(served.engine, 'inbox-triage', { kind: 'manual', detail: null });
    const pending = await listPending(served.engine.store);
    const textOne = pending.find((d) => d.item_id === '<text-attack@paypa1.example>');
    const htmlOne = pending.find((d) => d.item_id === '<html-attack@paypa1.example>');
    expect(textOne).toBeDefined();
    expect(htmlOne).toBeDefined();

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const csp = watchCsp(page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));

    await page.goto(`${served.url}/decide/${textOne!.id}`);
    const body = page.locator('[data-mail-body]');
    expect(await body.textContent()).toContain('<script>window.__pwned = "script"</script>');
    expect(await body.textContent()).toContain('<img src="https://evil.example/pixel.png');
    expect(await page.locator('h1').textContent()).toBe('Account suspended <b>now</b>');
    expect(await page.locator('.mail-from').textContent()).toContain('PayPal <script>alert(1)</script>');
    expect(await body.locator('.link-host').allTextContents()).toEqual(
      expect.arrayContaining(['goes to paypa1.example', 'goes to evil.example']),
    );
    expect(await body.locator('script, img, a, iframe, object, embed').count()).toBe(0);
    expect(
      await page.locator('a[href^="javascript:"], a[href*="paypa1"], a[href*="evil.example"]').count(),
    ).toBe(0);
    await screenshot(page, 'decision-hostile');
    expect(await a11y.seriousViolations(page.url())).toEqual([]);

    await page.goto(`${served.url}/decide/${htmlOne!.id}`);
    const warnings = await page.locator('[data-mail-body] .link-warn').allTextContents();
    expect(warnings).toContain('the text says paypal.com, the link goes to paypa1.example');
    expect(warnings).toContain('international look-alike host');
    expect(await page.locator('[data-mail-body] .link-host').allTextContents()).toContain(
      'goes to xn--pypal-4ve.example',
    );

    expect(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned),
    ).toBeUndefined();
    const foreign = requests.filter((url) => !url.startsWith(served.url));
    expect(foreign).toEqual([]);
    expect(csp).toEqual([]);
    await context.close();
  });
});

describe('with HANDOFF_UI_PASSWORD set', () => {
  it('every page needs the login; a wrong password is refused; the right one opens the app', async () => {
    const guarded = await startServer({ HANDOFF_UI_PASSWORD: 'correct horse battery staple' });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      for (const path of ['/', '/activity', '/memory', '/settings', '/runs']) {
        await page.goto(`${guarded.url}${path}`);
        expect(new URL(page.url()).pathname).toBe('/login');
      }
      expect(await page.locator('h1').textContent()).toBe('Log in');
      expect(await a11y.seriousViolations(page.url())).toEqual([]);
      await screenshot(page, 'login');

      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Log in' }).click();
      expect(await page.locator('.flash-error').textContent()).toBe('Wrong password.');

      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${guarded.url}/runs`);
      const cookie = (await context.cookies()).find((c) => c.name === 'handoff_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false });
      await page.goto(guarded.url);
      expect(await page.locator('h1').textContent()).toBe('Overview');

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/login$/);
      await page.goto(`${guarded.url}/settings`);
      expect(new URL(page.url()).pathname).toBe('/login');
    } finally {
      await context.close();
      await guarded.close();
    }
  });
});

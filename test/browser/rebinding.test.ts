/**
 * DNS rebinding and cross-site forms in real headless Chromium: Chromium resolves the
 * attacker's names to 127.0.0.1 (as a rebound DNS answer would), and the local server
 * shows such a page only a refusal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readStoredSettings } from '../../shared/settings/settings.ts';
import { CHROMIUM, HEADLESS_FLAGS } from '../support/chromium.ts';
import { startServer, type Served } from './support.ts';

const REBOUND = 'rebind.attacker.example';
const ATTACKER = 'attacker.example';

let browser: Browser;
let served: Served;
let port: number;
let attackerSite: http.Server;

/** The attacker's own site: a page that submits a form to the local server as soon as it loads. */
function startAttackerSite(target: string): Promise<http.Server> {
  const page = `<!doctype html><form method="post" action="${target}/settings">
    <input name="ui_base_url" value="http://${ATTACKER}"><input name="confidence_threshold" value="0.1">
  </form><script>document.forms[0].submit()</script>`;
  const site = http.createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(page),
  );
  return new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(site)));
}

beforeAll(async () => {
  served = await startServer();
  port = Number(new URL(served.url).port);
  attackerSite = await startAttackerSite(served.url);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...HEADLESS_FLAGS, `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1, MAP ${ATTACKER} 127.0.0.1`],
  });
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await new Promise((resolve) => attackerSite?.close(resolve));
});

describe('a site whose name was rebound to 127.0.0.1', () => {
  it('sees only a refusal: no page, no session, and its POSTs change nothing', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const answer = await page.goto(`http://${REBOUND}:${port}/settings`);
      expect(answer?.status()).toBe(403);
      expect((await page.locator('body').innerText()).trim()).toBe(
        `refused: "${REBOUND}:${port}" is not this server's address or its UI base URL's`,
      );
      expect(await context.cookies()).toEqual([]);

      // Same-origin to the rebound name, so a script may read what comes back: a refusal.
      const posted = await page.evaluate(async () => {
        const res = await fetch('/settings', {
          method: 'POST',
          body: new URLSearchParams({ ui_base_url: 'http://rebind.attacker.example', _csrf: 'x' }),
        });
        return { status: res.status, text: await res.text() };
      });
      expect(posted.status).toBe(403);
      expect(posted.text).toMatch(/^refused: "rebind\.attacker\.example:\d+" is not this server's address/);
      expect(await readStoredSettings(served.engine.store)).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe('a form on another site posting to the local server', () => {
  it('is refused by its Origin, even from a browser that has a session here', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${served.url}/settings`); // the person's own session
      expect(await context.cookies()).toHaveLength(1);

      const { port: sitePort } = attackerSite.address() as AddressInfo;
      const refused = page.waitForResponse((res) => res.url() === `${served.url}/settings`);
      await page.goto(`http://${ATTACKER}:${sitePort}/`);
      const res = await refused;
      expect(res.status()).toBe(403);
      expect(await res.text()).toBe(
        `refused: a change sent from another site (Origin "http://${ATTACKER}:${sitePort}"); nothing changed\n`,
      );
      expect(await readStoredSettings(served.engine.store)).toBeNull();
    } finally {
      await context.close();
    }
  });
});

/**
 * The first hour with no terminal, in real headless Chromium on the server as `handoff
 * start` runs it, on a desktop and on a phone: create a workspace, set a credential, build a
 * workflow in the chat (its missing credential filled on the card, then Yes: saved active), edit
 * the demo workflow on its page, run it, answer every question, deliver more demo mail,
 * run again and see the rules at work.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { getScheduleState } from '../../shared/schedules/schedules.ts';
import { getWorkflow, listWorkflows } from '../../shared/workflows/repository.ts';
import { openPlatform, type Platform } from '../../shared/workspaces/platform.ts';
import { launchBrowser, screenshot, watchCsp } from './support.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

async function sideways(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;
}

for (const width of [1280, 390] as const) {
  describe(`at ${width} px`, () => {
    let dir: string;
    let platform: Platform;
    let server: RunningServer;

    beforeAll(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-no-terminal-'));
      const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') });
      platform = await openPlatform(env);
      platform.engineFor('default').notifier = { notify: async () => {} };
      server = await serve({
        env,
        engine: platform.engineFor('default'),
        platform,
        port: 0,
        print: () => {},
      });
    });
    afterAll(async () => {
      await server?.close();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('goes from a new workspace to a second run that asks less, never leaving the browser', async () => {
      const context = await browser.newContext({ viewport: { width, height: 860 } });
      const page = await context.newPage();
      const csp = watchCsp(page);
      const url = (p: string) => `${server.url}${p}`;
      try {
        // A workspace, made and opened from the web.
        await page.goto(url('/workspaces'));
        await page.getByLabel('Name', { exact: true }).fill('team-ops');
        await page.getByRole('button', { name: 'Create and open it' }).click();
        await page.waitForURL(/\/\?created=team-ops/);
        expect(await page.locator('#workspace-select').inputValue()).toBe('team-ops');
        expect(await page.locator('main').textContent()).not.toMatch(/handoff (workflows|pending|decide)/);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        // Back to the demo's workspace: picking it switches at once.
        await Promise.all([
          page.waitForNavigation(),
          page.locator('#workspace-select').selectOption('default'),
        ]);
        expect(await page.locator('#workspace-select').inputValue()).toBe('default');

        // A credential, set write-only.
        await page.goto(url('/credentials'));
        await page.locator('#name-new').fill('TICKETS_API_KEY');
        await page.locator('#value-new').fill('tk-secret-value-123');
        await page.getByRole('button', { name: 'Set credential' }).click();
        await page.waitForURL(/set=TICKETS_API_KEY/);
        expect(await page.locator('main').textContent()).not.toContain('tk-secret-value-123');
        expect(await page.locator('[data-credential="TICKETS_API_KEY"]').count()).toBe(1);

        // A workflow built in the chat: its card asks for the missing credential in a write-only
        // field, says it is set, and the yes saves it active (never paused, never unable to run).
        await page.goto(url('/chat'));
        await page.getByRole('button', { name: 'New chat' }).click();
        await page.waitForURL(/\/chat\/chat_[a-z0-9_]+$/);
        await page
          .getByLabel('Message')
          .fill('every weekday at 7 archive receipts from imap.example.org as me@example.org');
        await page.getByRole('button', { name: 'Send' }).click();
        const card = page.locator('[data-confirm]');
        await card.waitFor();
        expect(await card.locator('[data-needs]').textContent()).toContain('Needs MAIL_PASSWORD');
        expect(await card.textContent()).toMatch(/every weekday at 07:00/);
        await card.locator('#cred-MAIL_PASSWORD').fill('mail-secret-value-456');
        await card.getByRole('button', { name: 'Set MAIL_PASSWORD' }).click();
        await page.locator('[data-confirm] [data-credential="MAIL_PASSWORD"][data-set="true"]').waitFor();
        expect(await page.locator('main').textContent()).not.toContain('mail-secret-value-456');
        expect(await page.locator('[data-confirm] [data-needs]').count()).toBe(0);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        if (width === 390) {
          await page.locator('[data-confirm]').scrollIntoViewIfNeeded();
          await screenshot(page, 'no-terminal-chat-card-390', { fullPage: false });
        }
        await page.locator('[data-confirm]').getByRole('button', { name: 'Yes', exact: true }).click();
        await page
          .locator('.turn-assistant', { hasText: /Saved ".*" as workflow [a-z0-9-]+\./ })
          .last()
          .waitFor();
        const built = (await listWorkflows(platform.engineFor('default').store)).find((w) =>
          /receipts/i.test(w.name),
        );
        expect(built?.trigger.schedule).toBe('cron(0 7 ? * MON-FRI *)');
        expect(
          (await getScheduleState(platform.engineFor('default').store, built!.id))?.paused ?? false,
        ).toBe(false);
        await page.goto(url('/workflows'));
        const listed = page.locator(`[data-workflow="${built!.id}"]`);
        expect(await listed.locator('[data-readiness="ready"]').count()).toBe(1);
        expect(await listed.textContent()).not.toMatch(/paused/);

        // The demo workflow, edited on its page.
        await page.goto(url('/workflows'));
        await page.getByRole('link', { name: 'Inbox triage', exact: true }).click();
        await page.waitForURL(/\/workflows\/inbox-triage$/);
        await page.locator('#wf-threshold').fill('0.75');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.waitForURL(/saved=1/);
        expect(
          (await getWorkflow(platform.engineFor('default').store, 'inbox-triage')).confidence_threshold,
        ).toBe(0.75);
        expect(await sideways(page)).toBeLessThanOrEqual(0);

        // Run it from its page, and answer every question on the decision page.
        await page.getByRole('button', { name: 'Run now' }).click();
        await page.waitForURL(/\/runs\/run_[^/?]+$/);
        await page.locator('[data-run-status]', { hasText: 'waiting' }).waitFor();
        const store = platform.engineFor('default').store;
        const asked = (await listPending(store)).length;
        expect(asked).toBeGreaterThan(1);
        for (let left = asked; left > 0; left -= 1) {
          const [next] = await listPending(store);
          await page.goto(url(`/decide/${next!.id}`));
          const bar = page.locator('[data-answer-bar]');
          const box = await bar.boundingBox();
          expect(box!.y + box!.height).toBeLessThanOrEqual(860); // on screen, also on a phone
          await page.getByLabel(/Note/).fill('same for this sender from now on');
          await bar
            .getByRole('button', { name: /^(file ticket|archive|draft reply)$/ })
            .first()
            .click();
          await page.waitForLoadState();
        }
        expect(await listPending(store)).toEqual([]);
        if (width === 390) await screenshot(page, 'no-terminal-answered-390');

        // A fresh day of demo mail, and a second run the rules handle.
        await page.goto(url('/'));
        await page.getByRole('button', { name: 'Deliver more demo mail' }).click();
        await page.waitForURL(/delivered=/);
        expect(await page.locator('.flash-ok').textContent()).toMatch(/from senders you answered about/);
        // The demo's own Run now (the chat's workflow is listed too).
        await page
          .locator('form[action="/runs"]:has(input[name="workflow_id"][value="inbox-triage"]) button')
          .first()
          .click();
        await page.waitForURL(/\/runs\/run_[^/?]+$/);
        await page.locator('[data-run-status]', { hasText: /waiting|completed/ }).waitFor();
        await page.locator('[data-run-summary]', { hasText: /[1-9]\d* by learned rules/ }).waitFor();
        expect((await listPending(store)).length).toBeLessThan(asked);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        await screenshot(page, `no-terminal-second-run-${width}`, { fullPage: false });
        expect(csp).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}

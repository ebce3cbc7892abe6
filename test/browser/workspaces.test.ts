/**
 * Workspaces in real headless Chromium, on the server as `handoff start` runs it: Activity
 * lists the selected workspace's questions (its badge counts exactly them) and names the
 * other workspaces where questions wait, with a button that switches there; the sidebar's
 * switcher changes what the pages show.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import type { Decision } from '../../shared/records/runs.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { openPlatform } from '../../shared/workspaces/platform.ts';
import { addDemoWorkflow } from '../web/support.ts';
import { A11yChecker, cssValue, launchBrowser, screenshot, watchCsp } from './support.ts';

const AMBER = 'rgb(245, 158, 11)';
let dir: string;
let browser: Browser;
let server: RunningServer;
let context: BrowserContext;
let page: Page;
let cspProblems: string[];
let teamB: EngineDeps;
let runB: string;
let asked: Decision[];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-browser-'));
  const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') });
  const platform = await openPlatform(env);
  const quiet = { notify: async () => {} };
  teamB = platform.engineFor((await platform.registry.add('team-b')).id);
  teamB.notifier = quiet;
  platform.engineFor('default').notifier = quiet;
  await addDemoWorkflow(teamB, dir);
  const run = await createRunFor(teamB, 'inbox-triage', { kind: 'manual', detail: null });
  const launcher = createRunLauncher(teamB);
  launcher.launch(run);
  await launcher.idle();
  runB = run.id;
  asked = await listPending(teamB.store);
  expect(asked.length).toBeGreaterThan(1);
  [browser, server] = await Promise.all([
    launchBrowser(),
    serve({ env, engine: platform.engineFor('default'), platform, port: 0, print: () => {} }),
  ]);
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  cspProblems = watchCsp(page);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it("lists the selected workspace's questions on Activity, and switches to another's from its line", async () => {
  await page.goto(`${server.url}/activity`);
  // `default` has none waiting: no rows, no badge; one line names team-b's, and the switcher too.
  expect(await page.locator('.question').count()).toBe(0);
  const badge = page.locator('#nav [data-pending-badge]');
  expect(await badge.count()).toBe(0);
  expect(await page.locator('#workspace-select').inputValue()).toBe('default');
  expect(await page.locator('#workspace-select option', { hasText: 'team-b' }).textContent()).toContain(
    `(${asked.length} waiting)`,
  );
  const elsewhere = page.getByRole('button', { name: `${asked.length} in team-b` });
  await Promise.all([page.waitForURL(/\/activity$/), elsewhere.click()]);

  // team-b's Activity: its questions, amber, and a badge of exactly as many.
  expect(await page.locator('#workspace-select').inputValue()).toBe('team-b');
  expect(await page.locator('.question').count()).toBe(asked.length);
  expect(await cssValue(page.locator('.question .pending').first(), 'borderTopColor')).toBe(AMBER);
  expect(await badge.textContent()).toContain(String(asked.length));
  await screenshot(page, 'activity-workspaces');

  const first = asked.find((d) => d.suggested_action !== 'skip')!;
  const row = page.locator('.question', { hasText: first.subject });
  await row.getByRole('button', { name: 'skip', exact: true }).click();
  await page.waitForURL(/\/activity\?answered=/);
  expect(await page.locator('.question').count()).toBe(asked.length - 1);
  expect(await badge.textContent()).toContain(String(asked.length - 1));
  const left = await listPending(teamB.store);
  expect(left.map((d) => d.id)).not.toContain(first.id);
  expect(left).toHaveLength(asked.length - 1);

  expect(await new A11yChecker(browser).seriousViolations(`${server.url}/activity`, context)).toEqual([]);
  // Back to `default` for the next test.
  await page.goto(`${server.url}/activity`);
  await page.locator('#workspace-select').selectOption('default');
  await page.waitForFunction("!document.querySelector('.question')");
  expect(await page.locator('#workspace-select').inputValue()).toBe('default');
});

it('switches workspace as soon as one is picked in the sidebar: the pages show the chosen one', async () => {
  await page.goto(`${server.url}/runs`);
  expect(await page.locator('main').textContent()).not.toContain(runB);
  // With JavaScript the picker needs no button (without it, the form's Switch button submits).
  expect(await page.getByRole('button', { name: 'Switch' }).isVisible()).toBe(false);
  await Promise.all([page.waitForNavigation(), page.locator('#workspace-select').selectOption('team-b')]);
  await page.waitForURL(/\/runs$/);
  expect(await page.locator('#workspace-select').inputValue()).toBe('team-b');
  expect(await page.locator('main').textContent()).toContain(runB);
  // In team-b the badge counts team-b's waiting questions (one was answered above), in amber.
  const badge = page.locator('#nav [data-pending-badge]');
  expect((await badge.textContent())?.trim()).toMatch(new RegExp(`^${asked.length - 1}\\b`));
  expect(await cssValue(badge, 'backgroundColor')).toBe(AMBER);

  await Promise.all([page.waitForNavigation(), page.locator('#workspace-select').selectOption('default')]);
  await page.waitForURL(/\/runs$/);
  expect(await page.locator('main').textContent()).not.toContain(runB);
  expect(cspProblems).toEqual([]);
});

/** Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, against serve(). */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { Env } from '../../shared/config/env.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { CHROMIUM, HEADLESS_FLAGS } from '../support/chromium.ts';
import { makeEngine } from '../web/support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');
const PUBLISHED = path.join(ROOT, 'docs', 'screenshots');
const AXE = path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...HEADLESS_FLAGS] });
}

export interface Served {
  url: string;
  engine: EngineDeps;
  env: Env;
  server: RunningServer;
  close(): Promise<void>;
}

/** The local server on a free port over a fresh state dir (the demo is created on first start). */
export async function startServer(vars: Record<string, string> = {}): Promise<Served> {
  const { dir, env, engine } = await makeEngine(vars);
  const server = await serve({ env, engine, port: 0, print: () => {} });
  return {
    url: server.url,
    engine,
    env,
    server,
    close: async () => {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a screenshot as a test artefact (the whole page, or only the window for long
 * pages); `publish` also copies it to docs/screenshots (for the README).
 */
export async function screenshot(
  page: Page,
  name: string,
  opts: { publish?: boolean; fullPage?: boolean } = {},
): Promise<void> {
  const { publish = false, fullPage = true } = opts;
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  if (publish) {
    await fs.mkdir(PUBLISHED, { recursive: true });
    await fs.copyFile(file, path.join(PUBLISHED, `${name}.png`));
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core on pages and reports their serious and critical violations. axe is
 * injected as a script, which the app's CSP forbids: so the pages are opened in a
 * context of their own with `bypassCSP`, used for the axe step only (one per browser,
 * axe served from a cached URL so it is compiled once).
 */
export class A11yChecker {
  private page: Promise<Page> | undefined;

  constructor(private readonly browser: Browser) {}

  /** Opens `url` (with the cookies of `from`, if given) and returns its serious/critical violations. */
  async seriousViolations(url: string, from?: BrowserContext): Promise<AxeViolation[]> {
    this.page ??= this.open();
    const page = await this.page;
    if (from) await page.context().addCookies(await from.cookies());
    await page.goto(url);
    await page.addScriptTag({ url: new URL('/__axe__.js', url).href });
    const violations = await page.evaluate(async () => {
      type Axe = { run(options: object): Promise<{ violations: AxeViolation[] }> };
      return (await (globalThis as unknown as { axe: Axe }).axe.run({ resultTypes: ['violations'] }))
        .violations;
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target })),
      }));
  }

  private async open(): Promise<Page> {
    const source = await fs.readFile(AXE, 'utf8');
    const context = await this.browser.newContext({
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
    });
    await context.route('**/__axe__.js', (route) =>
      route.fulfill({
        body: source,
        contentType: 'text/javascript',
        headers: { 'Cache-Control': 'max-age=3600' },
      }),
    );
    return context.newPage();
  }
}

/** Collects the browser's CSP complaints, so a test can assert the pages need nothing inline. */
export function watchCsp(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return problems;
}

/** A computed style property of the element (e.g. the badge's background colour). */
export function cssValue(locator: Locator, property: string): Promise<string> {
  return locator.evaluate((el, name) => {
    const view = globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> };
    return view.getComputedStyle(el)[name] ?? '';
  }, property);
}

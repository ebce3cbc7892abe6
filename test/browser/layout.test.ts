/**
 * Every page on a phone, a tablet and a desktop, in real headless Chromium: nothing
 * scrolls sideways and every heading is readable against what is really behind it.
 * Amber means "waiting for you" and nothing else, and a message's links look like text.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { A11yChecker, cssValue, launchBrowser, screenshot, startServer, type Served } from './support.ts';

const WIDTHS = [390, 768, 1280] as const;
const LONG_URL = `https://tracking.example/c/${'a1b2c3d4e5'.repeat(18)}?utm_source=newsletter`;

let browser: Browser;
let served: Served;
let a11y: A11yChecker;
let runId: string;
let longMailDecision: string;
let phishing: string;

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  a11y = new A11yChecker(browser);
  await writeMaildir(path.join(served.env.HANDOFF_STATE_DIR, 'demo', 'Maildir'), [
    {
      from: 'updates@tracking.example',
      to: 'alex.morgan@northwind.example',
      subject: `Your report ${'Q3-northwind-usage-export-'.repeat(4)}is ready`,
      body: `Hello,\n\nYour export is ready: ${LONG_URL}\n\nPlease verify your account first.\n`,
      date: new Date('2025-03-11T09:00:00Z'),
      messageId: '<long-link@tracking.example>',
    },
  ]);
  runId = (await startRun(served.engine, 'inbox-triage', { kind: 'manual', detail: null })).id;
  const pending = await listPending(served.engine.store);
  const long = pending.find((d) => d.item_id === '<long-link@tracking.example>');
  expect(long).toBeDefined();
  longMailDecision = long!.id;
  phishing = pending.find((d) => d.subject.includes('password'))!.id;
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

function pages(): string[] {
  return [
    '/',
    '/activity',
    '/runs',
    `/runs/${runId}`,
    `/decide/${longMailDecision}`,
    '/memory',
    '/settings',
    '/talk',
    '/workflows',
    '/workflows/inbox-triage',
    '/workflows/inbox-triage/delete',
    '/workflows/new',
    '/credentials',
    '/schedules',
    '/runs/no-such-run', // a bare message page
    '/no-such-page', // the styled Not found page
  ];
}

/**
 * For each h1/h2: its contrast ratio against the colour really behind it, found by
 * walking up to the first opaque background. A background image (a gradient stripe)
 * counts with every colour it has, since any of them may be behind the text.
 */
const HEADING_CONTRAST = `(() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const behind = (el) => {
    const layers = [];
    const images = [];
    for (let node = el; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage && style.backgroundImage !== 'none')
        for (const m of style.backgroundImage.matchAll(/rgba?\\([^)]+\\)/g)) {
          const c = parse(m[0]);
          if (c && c.a > 0) images.push(c);
        }
      const bg = parse(style.backgroundColor);
      if (bg && bg.a > 0) { layers.push(bg); if (bg.a >= 1) break; }
    }
    let base = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) base = over(layer, base);
    return [base, ...images.map((c) => over(c, base))];
  };
  return [...document.querySelectorAll('h1, h2')]
    .filter((h) => h.getClientRects().length > 0)
    .map((h) => {
      const ink = parse(getComputedStyle(h).color);
      const worst = Math.min(...behind(h).map((bg) => ratio(ink, bg)));
      return { text: (h.textContent || '').trim().slice(0, 40), ratio: Math.round(worst * 100) / 100 };
    });
})()`;

async function sideways(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;
}

describe('every page at 390, 768 and 1280 px', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px nothing scrolls sideways and every heading is readable`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 860 } });
      try {
        const page = await context.newPage();
        for (const url of pages()) {
          await page.goto(`${served.url}${url}`);
          expect(await sideways(page)).toBeLessThanOrEqual(0);
          const headings = (await page.evaluate(HEADING_CONTRAST)) as { text: string; ratio: number }[];
          expect(headings.length).toBeGreaterThan(0);
          for (const h of headings) expect(h.ratio).toBeGreaterThanOrEqual(4.5);
        }
        if (width !== 768) {
          await page.goto(served.url);
          await screenshot(page, `overview-${width}`, { publish: true });
          await page.goto(`${served.url}/decide/${phishing}`); // the demo's phishing mail, with its link
          await screenshot(page, `decision-${width}`, { publish: true });
        }
      } finally {
        await context.close();
      }
    });
  }

  it('on a phone the answer buttons stay on screen in a bar, and Run now comes before the tiles', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(`${served.url}/decide/${longMailDecision}`);
      const bar = await page.locator('[data-answer-bar]').boundingBox();
      expect(bar!.y + bar!.height).toBeLessThanOrEqual(860);
      expect(bar!.y).toBeGreaterThan(430); // at the bottom of the screen, not over the message's top
      await page.mouse.wheel(0, 1200);
      const scrolled = await page.locator('[data-answer-bar]').boundingBox();
      expect(scrolled!.y + scrolled!.height).toBeLessThanOrEqual(860);
      expect(await sideways(page)).toBeLessThanOrEqual(0);

      await page.goto(served.url);
      const runNow = await page
        .getByRole('button', { name: /^Run now/ })
        .first()
        .boundingBox();
      const tiles = await page.locator('.tiles').boundingBox();
      expect(runNow!.y).toBeLessThan(tiles!.y);
      await screenshot(page, 'overview-phone-run-now');
    } finally {
      await context.close();
    }
  });

  it('the Workflows, Credentials and Schedules pages have no serious accessibility problems', async () => {
    for (const url of [
      '/workflows',
      '/workflows/inbox-triage',
      '/workflows/new',
      '/credentials',
      '/schedules',
    ])
      expect({ url, violations: await a11y.seriousViolations(`${served.url}${url}`) }).toEqual({
        url,
        violations: [],
      });
  });

  it('on a phone the sidebar is a bar across the top, above the page', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(`${served.url}/runs/${runId}`);
      const nav = await page.locator('#nav').boundingBox();
      const main = await page.locator('main').boundingBox();
      expect(nav!.width).toBeGreaterThanOrEqual(389);
      expect(main!.y).toBeGreaterThanOrEqual(nav!.y + nav!.height);
      expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('Runs');
      expect(await a11y.seriousViolations(page.url())).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

const AMBERS = new Set(
  ['245, 158, 11', '254, 243, 199', '120, 53, 15', '251, 191, 36', '255, 251, 235'].map((c) => `rgb(${c})`),
);

/** Every computed colour on the page that is one of the amber palette, with where it is. */
const AMBER_USES = `(() => {
  const ambers = new Set(${JSON.stringify([...AMBERS])});
  const props = ['color', 'backgroundColor', 'borderTopColor', 'borderLeftColor', 'borderBottomColor',
    'borderRightColor', 'outlineColor', 'fill', 'stroke', 'accentColor', 'boxShadow', 'backgroundImage'];
  const found = [];
  for (const el of document.querySelectorAll('body, body *')) {
    const style = getComputedStyle(el);
    for (const p of props)
      for (const m of String(style[p]).matchAll(/rgb\\([^)]+\\)/g))
        if (ambers.has(m[0])) found.push(el.tagName.toLowerCase() + '.' + el.getAttribute('class') + ' ' + p);
  }
  return found;
})()`;

describe('amber means waiting for you', () => {
  it('once nothing waits, no page shows amber: not the brand, the slider or the gauge', async () => {
    const pending = await listPending(served.engine.store);
    for (const d of pending) await decide(served.engine, d.id, 'skip', null);
    expect((await getRun(served.engine.store, runId)).status).toBe('completed');

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      for (const url of pages()) {
        await page.goto(`${served.url}${url}`);
        expect(await page.evaluate(AMBER_USES)).toEqual([]);
      }
      const icon = await (await fetch(`${served.url}/assets/icon.svg`)).text();
      expect(icon.toLowerCase()).not.toContain('#f59e0b');
    } finally {
      await context.close();
    }
  });

  it("shows a message's links as plain text beside their real host", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(`${served.url}/decide/${longMailDecision}`);
      const url = page.locator('[data-mail-body] .link-url').first();
      expect(await url.textContent()).toBe(LONG_URL);
      expect(await cssValue(url, 'textDecorationLine')).toBe('none');
      expect(await cssValue(url, 'cursor')).toBe('default');
      expect(await cssValue(url, 'color')).toBe(await cssValue(page.locator('[data-mail-body]'), 'color'));
      expect(await cssValue(page.locator('[data-mail-body] .link').first(), 'cursor')).toBe('default');
      expect(await page.locator('[data-mail-body] .link-host').first().textContent()).toBe(
        'goes to tracking.example',
      );
    } finally {
      await context.close();
    }
  });

  it('has a Runs page in the sidebar: newest first, each with its outcome sentence', async () => {
    const second = await startRun(served.engine, 'inbox-triage', { kind: 'manual', detail: null });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(served.url);
      await page.locator('#nav').getByRole('link', { name: 'Runs' }).click();
      await page.waitForURL(`${served.url}/runs`);
      expect(await page.locator('h1').textContent()).toBe('Runs');
      expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('Runs');
      const links = await page.locator('main tbody tr td:first-child a').allTextContents();
      expect(links).toEqual([second.id, runId]);
      const outcome = await page.locator('main tbody tr').last().locator('td').last().textContent();
      expect(outcome).toMatch(
        /^\d+ acted \(\d+ confident, .+, \d+ by you\), \d+ asked, \d+ left alone( \(\d+ by rules\))?$/,
      );
      expect(await a11y.seriousViolations(page.url())).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

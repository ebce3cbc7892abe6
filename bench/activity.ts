/**
 * `npm run bench:activity`: Activity with 1,000 questions waiting (one real paused demo run,
 * the rest seeded through the store by waiting-seed.ts). Measures the server time of
 * GET /activity (median of 9 after 2 warm-ups, with min and max) and the page's height in
 * Chromium at 1280 and 390 px wide. Targets: ≤ 200 ms server time, < 10,000 px tall. Also the
 * server time of the other pages with a badge and of GET /api/decisions?status=pending.
 */
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { listPending } from '../shared/runs/decision-repository.ts';
import { getRun } from '../shared/runs/run-repository.ts';
import { createRunFor } from '../shared/runs/start-run.ts';
import { createRunLauncher } from '../shared/web/run-launcher.ts';
import { startServer } from '../test/browser/support.ts';
import { CHROMIUM, HEADLESS_FLAGS } from '../test/support/chromium.ts';
import { seedWaiting } from './waiting-seed.ts';

const WAITING = 1000;
const RUNS = 9;
const API_KEY = 'bench-activity-key';

async function main(): Promise<void> {
  const served = await startServer({ HANDOFF_API_KEY: API_KEY });
  try {
    const { engine } = served;
    const run = await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null });
    const launcher = createRunLauncher(engine);
    launcher.launch(run);
    await launcher.idle();
    const real = await listPending(engine.store);
    await seedWaiting(engine.store, await getRun(engine.store, run.id), real[0]!, WAITING - real.length, 4);
    const waiting = (await listPending(engine.store)).length;

    const cookie = (await fetch(`${served.url}/activity`)).headers.get('set-cookie')?.split(';')[0] ?? '';
    /** Server times of GET `path`, sorted: RUNS requests after 2 warm-ups. */
    const timesOf = async (path: string, headers: Record<string, string>) => {
      const times: number[] = [];
      for (let i = 0; i < RUNS + 2; i++) {
        const start = performance.now();
        const res = await fetch(`${served.url}${path}`, { headers });
        await res.text();
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
        if (i >= 2) times.push(performance.now() - start);
      }
      return times.sort((a, b) => a - b);
    };
    const times = await timesOf('/activity', { Cookie: cookie });
    const median = times[Math.floor(times.length / 2)]!;
    // The other pages with a badge, and the waiting list's first page: each counts or pages what waits.
    const others: [string, number[]][] = [];
    for (const path of ['/', '/runs', '/talk', '/memory'])
      others.push([path, await timesOf(path, { Cookie: cookie })]);
    others.push([
      '/api/decisions?status=pending',
      await timesOf('/api/decisions?status=pending', { Authorization: `Bearer ${API_KEY}` }),
    ]);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...HEADLESS_FLAGS] });
    const heights: Record<number, { height: number; overflow: number }> = {};
    try {
      for (const width of [1280, 390]) {
        const page = await (await browser.newContext({ viewport: { width, height: 860 } })).newPage();
        await page.goto(`${served.url}/activity`);
        heights[width] = {
          height: (await page.evaluate('document.documentElement.scrollHeight')) as number,
          overflow: (await page.evaluate(
            'document.documentElement.scrollWidth - window.innerWidth',
          )) as number,
        };
      }
    } finally {
      await browser.close();
    }
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(
      `Activity with ${waiting} questions waiting (${RUNS} requests after 2 warm-ups, local server)`,
    );
    console.log(
      `  GET /activity: median ${ms(median)} (min ${ms(times[0]!)}, max ${ms(times.at(-1)!)}) — target ≤ 200 ms`,
    );
    for (const [path, t] of others)
      console.log(
        `  GET ${path}: median ${ms(t[Math.floor(t.length / 2)]!)} (min ${ms(t[0]!)}, max ${ms(t.at(-1)!)})`,
      );
    for (const [width, h] of Object.entries(heights))
      console.log(
        `  page height at ${width} px: ${h.height} px, sideways overflow ${h.overflow} px — target < 10,000 px`,
      );
  } finally {
    await served.close();
  }
}

await main();

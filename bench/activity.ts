/**
 * `npm run bench:activity`: Activity with 1,000 questions waiting (one real paused demo run,
 * the rest seeded through the store by waiting-seed.ts). Measures the server time of
 * GET /activity (median of 9 after 2 warm-ups, with min and max) and the page's height in
 * Chromium at 1280 and 390 px wide. Targets: ≤ 200 ms server time, < 10,000 px tall.
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

async function main(): Promise<void> {
  const served = await startServer();
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
    const times: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const start = performance.now();
      const res = await fetch(`${served.url}/activity`, { headers: { Cookie: cookie } });
      await res.text();
      if (res.status !== 200) throw new Error(`GET /activity answered ${res.status}`);
      if (i >= 2) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;

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
    for (const [width, h] of Object.entries(heights))
      console.log(
        `  page height at ${width} px: ${h.height} px, sideways overflow ${h.overflow} px — target < 10,000 px`,
      );
  } finally {
    await served.close();
  }
}

await main();

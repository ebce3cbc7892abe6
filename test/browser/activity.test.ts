/**
 * Activity in real headless Chromium with 1,000 questions waiting (seeded through the store
 * from a real paused run): answered by group (after the confirm step, in place), by keyboard
 * and by selection; the list and the badge update without a reload; the page stays short
 * and, at 390 px, never scrolls sideways. A waiting run's page answers its questions in bulk
 * too: the selected ones, and "Accept the N suggestions" after its confirm step.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { ruleWords } from '../../shared/runs/learned.ts';
import { isLive } from '../../shared/records/rule.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { senderDomain } from '../../shared/web/activity-list.ts';
import { launchBrowser, screenshot, startServer, watchCsp, type Served } from './support.ts';

const WAITING = 1000;
let browser: Browser;
let served: Served;
let context: BrowserContext;
let page: Page;
let cspProblems: string[];
let seededRuns: string[];

beforeAll(async () => {
  [browser, served] = await Promise.all([launchBrowser(), startServer()]);
  const engine = served.engine;
  const run = await createRunFor(engine, 'inbox-triage', { kind: 'manual', detail: null });
  const launcher = createRunLauncher(engine);
  launcher.launch(run);
  await launcher.idle();
  const real = await listPending(engine.store);
  seededRuns = await seedWaiting(
    engine.store,
    await getRun(engine.store, run.id),
    real[0]!,
    WAITING - real.length,
    4,
  );
  expect(await listPending(engine.store)).toHaveLength(WAITING);
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  cspProblems = watchCsp(page);
}, 120_000);

afterAll(async () => {
  expect(cspProblems).toEqual([]);
  await browser?.close();
  await served?.close();
});

const badge = () => page.locator('#nav [data-pending-badge]').textContent();
const waitingNow = async () => (await listPending(served.engine.store)).length;

/** True in the page once an answer in place has swapped the list since `was` (the CSP allows no string eval). */
const answeredSince = (was: string | null) =>
  (
    globalThis as unknown as { document: { documentElement: { getAttribute(name: string): string | null } } }
  ).document.documentElement.getAttribute('data-answered') !== was;

/** Waits for an answer given in place: the list swapped, the page not reloaded. */
async function answeredInPlace(act: () => Promise<void>): Promise<void> {
  const before = (await page.evaluate("document.documentElement.getAttribute('data-answered')")) as
    string | null;
  await page.evaluate('window.notReloaded = true');
  await act();
  await page.waitForFunction(answeredSince, before, { timeout: 30_000 });
  expect(await page.evaluate('window.notReloaded === true')).toBe(true);
}

it('shows 50 of the 1,000, grouped by run and sender domain, a badge of 1,000, short and narrow-safe', async () => {
  await page.goto(`${served.url}/activity`);
  expect(await page.locator('[data-q]').count()).toBe(50);
  expect(await badge()).toContain(String(WAITING));
  expect((await page.locator('.pager').textContent())?.replace(/\s+/g, ' ')).toContain(
    `Questions 1–50 of ${WAITING}`,
  );
  expect(await page.locator('.run-group').count()).toBeGreaterThan(0);
  // Each page groups its questions by run and sender domain; "Next page" goes on.
  let domains = 0;
  for (let p = 1; p <= 3; p++) {
    domains += await page.locator('.domain-group').count();
    if (p < 3) await Promise.all([page.waitForURL(/after=/), page.locator('a[rel="next"]').click()]);
  }
  expect(domains).toBeGreaterThan(3);
  await page.goto(`${served.url}/activity`);
  const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
  expect(height).toBeLessThan(10_000);
  await screenshot(page, 'activity-many', { fullPage: false });

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const small = await phone.newPage();
    await small.goto(`${served.url}/activity`);
    expect(
      await small.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
    expect(await small.evaluate('document.documentElement.scrollHeight')).toBeLessThan(10_000);
  } finally {
    await phone.close();
  }
});

it('accepts a group: first says what will happen, then does it in place', async () => {
  await page.goto(`${served.url}/activity`);
  const group = page.locator('.domain-group').first();
  const domain = (await group.getAttribute('data-domain'))!;
  const runId = (await page.locator('.run-group').first().getAttribute('data-run'))!;
  // The group's button takes the questions it shows on this page.
  const shown = (await group.locator('input[name="ids"]').getAttribute('value'))!.split(',');
  const pending = await listPending(served.engine.store);
  const inGroup = pending.filter((d) => shown.includes(d.id));
  expect(inGroup.every((d) => d.run_id === runId && senderDomain(d.sender) === domain)).toBe(true);
  const acceptable = inGroup.filter((d) => d.reason !== 'irreversible');
  expect(acceptable.length).toBeGreaterThan(1);
  expect(await group.locator('[data-accept-group]').textContent()).toContain(
    `Accept the ${acceptable.length} suggestions`,
  );

  await group.locator('[data-accept-group]').click();
  const confirm = page.locator('[data-confirm]');
  await confirm.waitFor();
  expect(await confirm.locator('[data-plan]').textContent()).toMatch(/This will archive \d+/);
  expect(await waitingNow()).toBe(pending.length); // nothing done before the confirm
  await screenshot(page, 'activity-confirm', { fullPage: false });

  await answeredInPlace(() => confirm.locator('[data-confirm-accept]').click());
  expect(await waitingNow()).toBe(pending.length - acceptable.length);
  for (const d of acceptable.slice(0, 5))
    expect((await getDecision(served.engine.store, d.id)).answer?.action).toBe('approve_suggested');
  expect(await badge()).toContain(String(pending.length - acceptable.length));
  expect(await page.locator('[data-activity] .flash-ok').textContent()).toContain(
    `Accepted ${acceptable.length} suggestions.`,
  );
  expect(await page.locator('[data-q]').count()).toBe(50);

  // The notice swapped in names the rules the answers taught, each with an Undo of its own.
  // (Of several answers about one sender, the last one's rule stands: it is the one named.)
  const taught = (await listRules(served.engine.store)).filter(
    (r) => isLive(r) && acceptable.some((d) => d.id === r.decision_id),
  );
  expect(taught.length).toBeGreaterThan(0);
  const notice = page.locator('[data-bulk-notice]');
  const offered = await notice
    .locator('form.undo')
    .evaluateAll((forms) => forms.map((f) => f.getAttribute('action')!));
  expect(offered.length).toBeGreaterThan(0);
  for (const action of offered) {
    const rule = taught.find((r) => action === `/rules/${r.id}/undo`);
    expect(rule).toBeDefined(); // an Undo only beside a rule this accept taught that stands
    expect(await notice.textContent()).toContain(ruleWords(rule!));
  }
  // Undo (a plain form) revokes the rule it stands beside, that alone, and comes back here.
  const undo = notice.locator('form.undo').first();
  const undoneId = /^\/rules\/([^/]+)\/undo$/.exec((await undo.getAttribute('action'))!)![1]!;
  const undoneRule = taught.find((r) => r.id === undoneId)!;
  const liveBefore = (await listRules(served.engine.store)).filter(isLive).map((r) => r.id);
  await Promise.all([page.waitForURL(/undone=1/), undo.locator('button').click()]);
  const liveAfter = (await listRules(served.engine.store)).filter(isLive).map((r) => r.id);
  expect(liveAfter).toEqual(liveBefore.filter((id) => id !== undoneId));
  expect(await page.locator('[data-bulk-notice]').textContent()).toContain(
    `Undone: ${ruleWords(undoneRule)}`,
  );
});

it('answers by keyboard: j/k move, a accepts, s skips, x selects, ? lists the keys', async () => {
  await page.goto(`${served.url}/activity`);
  await page.keyboard.press('?');
  expect(await page.locator('[data-keys-help]').getAttribute('open')).not.toBeNull();
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  const first = page.locator('[data-q]').first();
  expect(await first.getAttribute('class')).toContain('q-current');
  const firstId = (await first.locator('[data-pick]').getAttribute('name'))!.split(':')[2]!;
  const before = await waitingNow();

  await answeredInPlace(() => page.keyboard.press('s'));
  // Skipped: by `skip`, or by taking a suggestion that is itself to skip.
  const skipped = await getDecision(served.engine.store, firstId);
  expect(skipped.answer?.action === 'skip' || skipped.suggested_action === 'skip').toBe(true);
  expect(skipped.status).toBe('answered');
  expect(await waitingNow()).toBe(before - 1);

  // The same place now holds the next question; `a` takes its suggestion.
  const next = page.locator('[data-q].q-current');
  const nextId = (await next.locator('[data-pick]').getAttribute('name'))!.split(':')[2]!;
  expect(nextId).not.toBe(firstId);
  const nextDecision = await getDecision(served.engine.store, nextId);
  if (nextDecision.reason !== 'irreversible') {
    await answeredInPlace(() => page.keyboard.press('a'));
    expect((await getDecision(served.engine.store, nextId)).answer?.action).toBe('approve_suggested');
  }
  await page.keyboard.press('x');
  expect(await page.locator('[data-q].q-current [data-pick]').isChecked()).toBe(true);
  await page.keyboard.press('x');
  expect(await page.locator('[data-q].q-current [data-pick]').isChecked()).toBe(false);
});

it('answers the selected questions together, in place', async () => {
  await page.goto(`${served.url}/activity`);
  for (let p = 1; p < 3; p++)
    await Promise.all([page.waitForURL(/after=/), page.locator('a[rel="next"]').click()]);
  const third = new URL(page.url()).searchParams.get('after')!;
  const boxes = page.locator('[data-pick]');
  const names: string[] = [];
  for (let i = 0; i < 4; i++) {
    await boxes.nth(i).check();
    names.push((await boxes.nth(i).getAttribute('name'))!);
  }
  const before = await waitingNow();
  await answeredInPlace(() => page.locator('#pick').getByRole('button', { name: 'Archive' }).click());
  for (const name of names)
    expect((await getDecision(served.engine.store, name.split(':')[2]!)).answer?.action).toBe('archive');
  expect(await waitingNow()).toBe(before - 4);
  expect(new URL(page.url()).searchParams.get('after')).toBe(third);
  expect(await page.locator('[data-activity] .flash-ok').textContent()).toContain(
    'Answered 4 questions: archive.',
  );
});

it('opens a question with o', async () => {
  await page.goto(`${served.url}/activity`);
  await page.keyboard.press('j');
  const id = (await page.locator('[data-q].q-current [data-pick]').getAttribute('name'))!.split(':')[2]!;
  await page.keyboard.press('o');
  await page.waitForURL(`**/decide/${id}`);
});

describe("a waiting run's page", () => {
  const waitingOfRun = async (runId: string) =>
    (await listPending(served.engine.store)).filter((d) => d.run_id === runId);
  const flash = () => page.locator('[data-bulk-notice]').textContent();

  it('answers the two selected questions and comes back to the run', async () => {
    const runId = seededRuns.at(-1)!;
    await page.goto(`${served.url}/runs/${runId}`);
    const before = await waitingOfRun(runId);
    const badgeBefore = Number((await badge())?.trim());
    const boxes = page.locator('[data-run-answers] [data-pick]');
    expect(await boxes.count()).toBe(10);
    const picked: string[] = [];
    for (let i = 0; i < 2; i++) {
      await boxes.nth(i).check();
      picked.push((await boxes.nth(i).getAttribute('name'))!.split(':')[2]!);
    }
    await Promise.all([
      page.waitForURL(new RegExp(`/runs/${runId}\\?done=2`)),
      page.locator('#pick').getByRole('button', { name: 'Archive' }).click(),
    ]);
    for (const id of picked)
      expect((await getDecision(served.engine.store, id)).answer?.action).toBe('archive');
    expect(await waitingOfRun(runId)).toHaveLength(before.length - 2);
    expect(await flash()).toContain('Answered 2 questions: archive.');
    expect(Number((await badge())?.trim())).toBe(badgeBefore - 2);
    for (const id of picked) expect(await page.locator(`[name="pick::${id}"]`).count()).toBe(0);
  });

  it('says what accepting the suggestions does, does nothing until confirmed, then does it', async () => {
    // A run with suggestions that cannot be undone (left for the person), then one without (its last answered).
    const withIrreversible = [];
    for (const id of seededRuns)
      if ((await waitingOfRun(id)).some((d) => d.reason === 'irreversible')) withIrreversible.push(id);
    expect(withIrreversible.length).toBeGreaterThan(0);
    for (const runId of [withIrreversible[0]!, seededRuns.at(-1)!]) {
      await page.goto(`${served.url}/runs/${runId}`);
      const before = await waitingOfRun(runId);
      const acceptable = before.filter((d) => d.reason !== 'irreversible');
      const irreversible = before.filter((d) => d.reason === 'irreversible');
      expect(acceptable.length).toBeGreaterThan(10);
      const button = page.locator('[data-run-answers] [data-accept-group]');
      expect(await button.textContent()).toContain(`Accept the ${acceptable.length} suggestions`);

      await Promise.all([page.waitForURL(/\/activity\/accept/), button.click()]);
      const confirm = page.locator('[data-confirm]');
      await confirm.waitFor();
      expect(await confirm.locator('[data-plan]').textContent()).toMatch(/^This will archive \d+/);
      expect(await waitingOfRun(runId)).toHaveLength(before.length); // nothing done before the confirm

      await Promise.all([
        // A hundred and more answers carried out in one request: room for a loaded machine.
        page.waitForURL(new RegExp(`/runs/${runId}\\?done=${acceptable.length}`), { timeout: 80_000 }),
        confirm.locator('[data-confirm-accept]').click({ timeout: 80_000 }),
      ]);
      for (const d of acceptable)
        expect((await getDecision(served.engine.store, d.id)).answer?.action).toBe('approve_suggested');
      // What is left is what may not be accepted together: no button offers it, its rows remain.
      expect((await waitingOfRun(runId)).map((d) => d.id).sort()).toEqual(
        irreversible.map((d) => d.id).sort(),
      );
      expect(await flash()).toContain(`Accepted ${acceptable.length} suggestions.`);
      if (irreversible.length > 0) expect(await flash()).toContain('left for you');
      expect(await page.locator('[data-run-answers] [data-accept-group]').count()).toBe(0);
      expect(await page.locator('[data-run-answers] [data-pick]').count()).toBe(
        Math.min(10, irreversible.length),
      );
    }
  }, 180_000);
});

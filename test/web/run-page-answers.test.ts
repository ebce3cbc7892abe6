/**
 * A waiting run's page answers its questions in bulk, without JavaScript: "Accept the N
 * suggestions" first says what it will do and does it only when confirmed (irreversible
 * suggestions left for the person), and checked rows are answered together; each form
 * returns to the run's page with what it did.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { describeSuggestions } from '../../shared/web/activity-list.ts';
import { confirmAccept, csrfOf, pageClient, pageText, pageWords, type PageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let b: PageClient;
let runId: string;

beforeAll(async () => {
  h = await makeHarness();
  const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  runId = run.id;
  const [template] = await listPending(h.engine.store);
  await seedWaiting(h.engine.store, await getRun(h.engine.store, run.id), template!, 40, 1);
  b = pageClient(h.app);
}, 60_000);

afterAll(async () => {
  await h?.cleanup();
});

const text = (path: string) => pageText(b, path);
const words = pageWords;
const rowIds = (page: string) => [...page.matchAll(/name="pick::(dec_\w+)"/g)].map((m) => m[1]!);
const waitingOfRun = async () => (await listPending(h.engine.store)).filter((d) => d.run_id === runId);

describe("a waiting run's page", () => {
  it('offers "Accept the N suggestions" for the run and checkboxes on its first questions, as plain forms', async () => {
    const page = await text(`/runs/${runId}`);
    const waiting = await waitingOfRun();
    const acceptable = waiting.filter((d) => d.reason !== 'irreversible');
    expect(waiting.length).toBeGreaterThan(40);
    expect(acceptable.length).toBeLessThan(waiting.length); // some are irreversible
    expect(words(page)).toContain(`Accept the ${acceptable.length} suggestions`);
    expect(page).toMatch(/class="inline-form accept"\s+method="post"\s+action="\/activity\/accept"/);
    expect(page).toContain(`name="run" value="${runId}"`);
    expect(page).toContain(`name="back" value="/runs/${runId}"`);
    expect(page).toMatch(
      /<form\s+id="pick"\s+class="pick-bar"\s+method="post"\s+action="\/activity\/answer"/,
    );
    expect(rowIds(page)).toHaveLength(10);
    expect(rowIds(page).every((id) => waiting.some((d) => d.id === id))).toBe(true);
  });

  it('answers the checked questions together and comes back to the run with what it did', async () => {
    const page = await text(`/runs/${runId}`);
    const picked = rowIds(page).slice(0, 3);
    const fields: Record<string, string> = { _csrf: csrfOf(page), action: 'skip', back: `/runs/${runId}` };
    for (const id of picked) fields[`pick::${id}`] = '1';
    const res = await b.post('/activity/answer', fields);
    expect(res.status).toBe(303);
    const location = res.headers.get('Location')!;
    expect(location).toMatch(new RegExp(`^/runs/${runId}\\?done=3&`));
    for (const id of picked) expect((await getDecision(h.engine.store, id)).answer?.action).toBe('skip');
    const back = await text(location);
    expect(words(back)).toContain('Answered 3 questions: skip.');
    for (const id of picked) expect(rowIds(back)).not.toContain(id);
  });

  it("a row's own answer returns to the run's page", async () => {
    const page = await text(`/runs/${runId}`);
    const [id] = rowIds(page);
    const res = await b.post(`/decide/${id}`, {
      _csrf: csrfOf(page),
      action: 'skip',
      next: `/runs/${runId}`,
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe(`/runs/${runId}?answered=${id}`);
  });

  it('says what accepting the suggestions does, does nothing until confirmed, then does exactly that', async () => {
    const page = await text(`/runs/${runId}`);
    const before = await waitingOfRun();
    const acceptable = before.filter((d) => d.reason !== 'irreversible');
    const irreversible = before.filter((d) => d.reason === 'irreversible');

    const asked = await b.post('/activity/accept', {
      _csrf: csrfOf(page),
      run: runId,
      back: `/runs/${runId}`,
    });
    expect(asked.status).toBe(200);
    const confirm = await asked.text();
    expect(words(confirm)).toContain(`This will ${describeSuggestions(acceptable)}.`);
    expect(words(confirm)).toContain(`Left for you: ${irreversible.length} question`);
    expect(confirm).toContain(`href="/runs/${runId}" data-cancel`);
    expect(await waitingOfRun()).toHaveLength(before.length); // nothing yet

    const done = await confirmAccept(b, confirm, { run: runId, back: `/runs/${runId}` });
    expect(done.status).toBe(303);
    const location = done.headers.get('Location')!;
    expect(location).toMatch(new RegExp(`^/runs/${runId}\\?done=${acceptable.length}&`));
    for (const d of acceptable)
      expect((await getDecision(h.engine.store, d.id)).answer?.action).toBe('approve_suggested');
    expect((await waitingOfRun()).map((d) => d.id).sort()).toEqual(irreversible.map((d) => d.id).sort());

    const backPage = await text(location);
    const back = words(backPage);
    expect(back).toContain(`Accepted ${acceptable.length} suggestions.`);
    expect(back).toContain('left for you');
    // What is left cannot be accepted in bulk: no button offers it; its rows are still there to answer.
    expect(backPage).not.toContain('data-accept-group');
    expect(rowIds(backPage).sort()).toEqual(irreversible.map((d) => d.id).sort());
  });
});

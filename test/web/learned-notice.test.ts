/**
 * Learning you can see: after an answer the page says what it taught, in words, with an
 * Undo that revokes that rule alone; "Just this once" is a checkbox on every answer form,
 * and a once-answer says it taught nothing.
 */
import { afterEach, expect, it } from '@jest/globals';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { csrfOf, pageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const browser = () => pageClient(h.app);

const words = (page: string) =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

it('says what an answer taught, with an Undo that revokes that rule alone; once teaches nothing', async () => {
  h = await makeHarness();
  const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  expect(run.status).toBe('waiting');
  const [first, second] = await listPending(h.engine.store);
  const b = browser();
  const activity = await (await b.get('/activity')).text();
  // One on each question's form, and one on the selection bar.
  expect(activity.match(/name="once"/g)?.length).toBe((await listPending(h.engine.store)).length + 1);
  const decisionPage = await (await b.get(`/decide/${first!.id}`)).text();
  expect(decisionPage).toMatch(/<input id="once" type="checkbox" name="once" value="1" \/> Just this once/);

  // Answered from Activity: back on Activity, the rule in words, and its Undo.
  const answered = await b.post(`/decide/${first!.id}`, {
    _csrf: csrfOf(activity),
    action: 'archive',
    next: '/activity',
  });
  expect(answered.status).toBe(303);
  const back = answered.headers.get('Location')!;
  expect(back).toBe(`/activity?answered=${first!.id}`);
  const after = await (await b.get(back)).text();
  const [rule] = await listRules(h.engine.store);
  expect(rule).toMatchObject({ decision_id: first!.id, action: 'archive' });
  expect(words(after)).toContain(`From now on: mail from ${first!.sender} → archive it.`);
  expect(after).toContain(`action="/rules/${rule!.id}/undo"`);
  expect(words(await (await b.get(`/runs/${run.id}?answered=${first!.id}`)).text())).toContain(
    `From now on: mail from ${first!.sender} → archive it.`,
  );

  // Undo: that rule alone is revoked, and the page says so.
  const undone = await b.post(`/rules/${rule!.id}/undo`, { _csrf: csrfOf(after), back });
  expect(undone.status).toBe(303);
  expect(undone.headers.get('Location')).toBe(`${back}&undone=1`);
  expect(await listRules(h.engine.store)).toEqual([]);
  expect(words(await (await b.get(`${back}&undone=1`)).text())).toContain(
    'Undone: the rule from this answer is revoked',
  );
  // Undo from elsewhere cannot send the visitor off the site.
  const offsite = await b.post(`/rules/${rule!.id}/undo`, { _csrf: csrfOf(after), back: '//evil.example/' });
  expect(offsite.headers.get('Location')).toBe('/activity?undone=1');

  // Just this once, from the decision page: nothing learned, and it says so.
  const once = await b.post(`/decide/${second!.id}`, {
    _csrf: csrfOf(decisionPage),
    action: 'archive',
    once: '1',
    next: 'next',
  });
  expect(once.status).toBe(303);
  const shown = await (await b.get(once.headers.get('Location')!)).text();
  expect(words(shown)).toContain('Nothing learned (just this once).');
  expect(shown).not.toContain('/undo"');
  expect(await listRules(h.engine.store)).toEqual([]);
});

it('"Only this workflow" is a box on every answer form; checked, the rule stays with the workflow', async () => {
  h = await makeHarness();
  await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  const [first] = await listPending(h.engine.store);
  const b = browser();
  const activity = await (await b.get('/activity')).text();
  expect(activity.match(/name="scope" value="workflow"/g)?.length).toBe(
    (await listPending(h.engine.store)).length,
  );
  const decisionPage = await (await b.get(`/decide/${first!.id}`)).text();
  expect(decisionPage).toMatch(
    /<input id="scope" type="checkbox" name="scope" value="workflow" \/> Only this workflow/,
  );
  const answered = await b.post(`/decide/${first!.id}`, {
    _csrf: csrfOf(decisionPage),
    action: 'archive',
    scope: 'workflow',
    next: 'next',
  });
  expect(answered.status).toBe(303);
  const [rule] = await listRules(h.engine.store);
  expect(rule).toMatchObject({ decision_id: first!.id, scope: 'workflow', workflow_id: h.workflow.id });
  const memory = words(await (await b.get('/memory')).text());
  expect(memory).toContain(`only workflow`);
});

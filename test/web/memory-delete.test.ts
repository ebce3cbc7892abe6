/**
 * Memory: each rule says how often it fired and when last; Delete asks first, naming the
 * rule, and a deletion can be undone for ten minutes (a test clock moves time, no sleeps).
 */
import { afterEach, expect, it } from '@jest/globals';
import { foldRuleHits } from '../../shared/memory/rule-fires.ts';
import { addRule, listRules } from '../../shared/memory/rules-repository.ts';
import { UNDO_WINDOW_MS } from '../../shared/memory/rule-undo.ts';
import { csrfOf, pageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const browser = () => pageClient(h.app);

/** The "In use" section of the Memory page. */
const inUse = (html: string) => html.slice(html.indexOf('id="live-title"'));

it('shows how often each rule fired and when last, or that it never fired', async () => {
  h = await makeHarness();
  h.engine.clock = () => new Date('2026-12-06T09:00:00Z');
  const fired = await addRule(h.engine.store, {
    workflowId: null,
    match: { sender: 'ana@partner.example' },
    action: 'archive',
    note: null,
  });
  const quiet = await addRule(h.engine.store, {
    workflowId: null,
    match: { domain: 'vendor.example' },
    action: 'skip',
    note: null,
  });
  await foldRuleHits(h.engine.store, 'run_a', { [fired.id]: { n: 2, last: '2026-12-02T17:30:00.000Z' } });
  await foldRuleHits(h.engine.store, 'run_b', { [fired.id]: { n: 1, last: '2026-12-03T08:00:00.000Z' } });
  const html = await (await browser().get('/memory')).text();
  const card = (id: string) =>
    html.slice(html.indexOf(`id="${id}"`), html.indexOf('</li>', html.indexOf(`id="${id}"`)));
  expect(card(fired.id)).toMatch(
    /fired 3 times · last <time datetime="2026-12-03T08:00:00.000Z"[^>]*>3 Dec 08:00<\/time\s*>/,
  );
  expect(card(quiet.id)).toContain('never fired');
});

it('asks before deleting, naming the rule; Delete removes it and Undo brings it back within ten minutes', async () => {
  h = await makeHarness();
  let now = new Date('2026-12-06T09:00:00Z');
  h.engine.clock = () => now;
  const rule = await addRule(h.engine.store, {
    workflowId: null,
    match: { sender: 'ana@partner.example' },
    action: 'archive',
    note: 'her statements',
  });
  const b = browser();
  const memory = await (await b.get('/memory')).text();
  // The list's Delete is a link to the confirm page (works without JavaScript), not a form that deletes.
  expect(memory).toContain(`href="/memory/${rule.id}/delete"`);
  expect(memory).not.toContain(`method="post" action="/memory/${rule.id}/delete"`);

  const confirm = await b.get(`/memory/${rule.id}/delete`);
  expect(confirm.status).toBe(200);
  const page = await confirm.text();
  expect(page).toContain('Delete this rule?');
  expect(page).toMatch(/data-rule>mail from ana@partner\.example → archive</);
  expect(page).toContain(`action="/memory/${rule.id}/delete"`);
  expect(page).toContain(`href="/memory#${rule.id}"`); // Cancel
  expect((await listRules(h.engine.store)).map((r) => r.id)).toEqual([rule.id]); // asking deleted nothing

  const deleted = await b.post(`/memory/${rule.id}/delete`, { _csrf: csrfOf(page) });
  expect(deleted.status).toBe(303);
  expect(deleted.headers.get('Location')).toBe(`/memory?deleted=${rule.id}`);
  expect(await listRules(h.engine.store)).toEqual([]);
  const after = await (await b.get(deleted.headers.get('Location')!)).text();
  expect(after).toContain('Deleted the rule: <strong>mail from ana@partner.example → archive</strong>');
  expect(after).toContain(`action="/memory/${rule.id}/restore"`);
  expect(inUse(after)).not.toContain(`id="${rule.id}"`);
  // Any visit to Memory in the window offers the Undo, not only the one after the delete.
  now = new Date(now.getTime() + UNDO_WINDOW_MS / 2);
  const later = await (await b.get('/memory')).text();
  expect(later).toContain(`action="/memory/${rule.id}/restore"`);

  const restored = await b.post(`/memory/${rule.id}/restore`, { _csrf: csrfOf(later) });
  expect(restored.status).toBe(303);
  expect((await listRules(h.engine.store)).map((r) => r.id)).toEqual([rule.id]);
  const back = await (await b.get(restored.headers.get('Location')!)).text();
  expect(back).toContain('Restored the rule: mail from ana@partner.example → archive. It fires again.');
  expect(inUse(back)).toContain(`id="${rule.id}"`);
  expect(back).not.toContain(`action="/memory/${rule.id}/restore"`);
});

it('refuses to restore a rule deleted more than ten minutes ago, in one clear line', async () => {
  h = await makeHarness();
  let now = new Date('2026-12-06T09:00:00Z');
  h.engine.clock = () => now;
  const rule = await addRule(h.engine.store, {
    workflowId: null,
    match: { domain: 'vendor.example' },
    action: 'skip',
    note: null,
  });
  const b = browser();
  const page = await (await b.get(`/memory/${rule.id}/delete`)).text();
  expect((await b.post(`/memory/${rule.id}/delete`, { _csrf: csrfOf(page) })).status).toBe(303);
  now = new Date(now.getTime() + UNDO_WINDOW_MS + 60_000);
  const memory = await (await b.get(`/memory?deleted=${rule.id}`)).text();
  expect(memory).not.toContain(`action="/memory/${rule.id}/restore"`); // the Undo is gone with the window
  const late = await b.post(`/memory/${rule.id}/restore`, { _csrf: csrfOf(page) }); // the session's token
  expect(late.status).toBe(410);
  expect(await late.text()).toMatch(/deleted more than 10 minutes ago and can no longer be restored/);
  expect(await listRules(h.engine.store)).toEqual([]);
  // A deleted rule cannot be asked about again either.
  expect((await b.get(`/memory/${rule.id}/delete`)).status).toBe(404);
});

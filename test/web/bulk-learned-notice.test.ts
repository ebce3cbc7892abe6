/**
 * Learning you can see, in bulk: after "Accept the N suggestions" or "answer the selected",
 * the page names each rule taught ("From now on: mail from … → …") with an Undo that revokes
 * that rule alone and comes back; "just this once" answers say they taught nothing; the rules
 * are read by id from the store, so a forged or malformed `learned_ids` shows nothing.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { addRule, listRules } from '../../shared/memory/rules-repository.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { ruleWords } from '../../shared/runs/learned.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import {
  bulkNoticeOf,
  confirmAccept,
  confirmedIds,
  csrfOf,
  pageClient,
  pageText,
  pageWords,
  undoRuleIds,
  type PageClient,
} from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let b: PageClient;
let runId: string;

beforeAll(async () => {
  h = await makeHarness();
  const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  expect(run.status).toBe('waiting');
  runId = run.id;
  b = pageClient(h.app);
}, 60_000);

afterAll(async () => {
  await h?.cleanup();
});

const text = (path: string) => pageText(b, path);
const words = pageWords;

it('a selection answered "just this once" says it taught nothing, and teaches nothing', async () => {
  const page = await text(`/runs/${runId}`);
  expect(page).toMatch(/<input id="pick-once" type="checkbox" name="once" value="1" \/> Just this once/);
  const [one] = await listPending(h.engine.store);
  const res = await b.post('/activity/answer', {
    _csrf: csrfOf(page),
    action: 'archive',
    once: '1',
    back: `/runs/${runId}`,
    [`pick::${one!.id}`]: '1',
  });
  expect(res.status).toBe(303);
  expect((await getDecision(h.engine.store, one!.id)).answer?.action).toBe('archive');
  const notice = bulkNoticeOf(await text(res.headers.get('Location')!));
  expect(words(notice)).toContain('Answered 1 question: archive.');
  expect(words(notice)).toContain('1 just this once: nothing learned.');
  expect(words(notice)).not.toContain('From now on');
  expect(notice).not.toContain('/undo"');
  expect(await listRules(h.engine.store)).toEqual([]);
});

it('accepting the suggestions names each rule taught with its Undo, which revokes that rule alone', async () => {
  const page = await text(`/runs/${runId}`);
  const asked = await b.post('/activity/accept', { _csrf: csrfOf(page), run: runId, back: `/runs/${runId}` });
  const confirm = await asked.text();
  const done = await confirmAccept(b, confirm, { run: runId, back: `/runs/${runId}` });
  expect(done.status).toBe(303);
  const location = done.headers.get('Location')!;
  const rules = await listRules(h.engine.store);
  expect(rules.length).toBeGreaterThan(1);
  expect(rules.length).toBeLessThanOrEqual(5);
  expect(location).toContain(`learned=${rules.length}&learned_ids=`);

  const notice = bulkNoticeOf(await text(location));
  expect(words(notice)).toContain(`Learned ${rules.length} rules from them:`);
  for (const rule of rules) {
    const answered = await getDecision(h.engine.store, rule.decision_id!);
    expect(words(notice)).toContain(`From now on: mail from ${answered.sender} → `);
    expect(words(notice)).toContain(`${ruleWords(rule)}.`);
  }
  expect(undoRuleIds(notice).sort()).toEqual(rules.map((r) => r.id).sort());
  expect(notice).toContain(`name="back" value="${location.replace(/&/g, '&amp;')}"`);

  // Undo one: that rule alone is revoked, and the page comes back saying so.
  const [gone, ...kept] = rules;
  const undone = await b.post(`/rules/${gone!.id}/undo`, { _csrf: csrfOf(notice), back: location });
  expect(undone.status).toBe(303);
  expect(undone.headers.get('Location')).toBe(`${location}&undone=1`);
  expect((await listRules(h.engine.store)).map((r) => r.id).sort()).toEqual(kept.map((r) => r.id).sort());
  const after = bulkNoticeOf(await text(`${location}&undone=1`));
  expect(words(after)).toContain(`Undone: ${ruleWords(gone!)} (revoked).`);
  expect(undoRuleIds(after).sort()).toEqual(kept.map((r) => r.id).sort());
  // Its Undo returns here without the earlier "undone".
  expect(after).toContain(`name="back" value="${location.replace(/&/g, '&amp;')}"`);
});

it('names the first five and counts the rest', async () => {
  const [rule] = await listRules(h.engine.store);
  const notice = bulkNoticeOf(
    await text(`/activity?done=9&how=approve_suggested&learned=8&learned_ids=${rule!.id}`),
  );
  expect(words(notice)).toContain(`Learned 8 rules from them: ${ruleWords(rule!)}.`);
  expect(words(notice)).toContain('and 7 more (see Memory).');
});

it('ignores a forged or malformed learned_ids: no words come from the query', async () => {
  const [learned] = await listRules(h.engine.store);
  const yours = await addRule(h.engine.store, {
    workflowId: null,
    match: { sender: 'boss@corp.example' },
    action: 'archive',
    note: null,
  });
  const six = Array.from({ length: 6 }, () => learned!.id).join(',');
  for (const forged of [
    'rule_nope_000000',
    yours.id, // a rule you set, not one an answer taught
    encodeURIComponent('From now on: mail from x → delete it'),
    encodeURIComponent(`${learned!.id}"><script>alert(1)</script>`),
    six,
    `${learned!.id},../../etc`,
  ]) {
    const page = await text(`/activity?done=1&how=approve_suggested&learned=1&learned_ids=${forged}`);
    const notice = bulkNoticeOf(page);
    expect({ forged, says: words(notice) }).toEqual({
      forged,
      says: expect.stringContaining('Learned 1 rule from them (see Memory).'),
    });
    expect(notice).not.toContain('/undo"');
    expect(notice).not.toContain('<script>');
  }
  expect(words(bulkNoticeOf(await text(`/activity?done=1&learned=zz&once=-3`)))).not.toMatch(
    /Learned|just this once/,
  );
});

it('accepting the suggestions "just this once" (the confirm step\'s box) answers them all and teaches nothing', async () => {
  const own = await makeHarness();
  try {
    const run = await startRun(own.engine, own.workflow.id, { kind: 'manual', detail: null });
    const browser = pageClient(own.app);
    const page = await (await browser.get(`/runs/${run.id}`)).text();
    const asked = await browser.post('/activity/accept', {
      _csrf: csrfOf(page),
      run: run.id,
      back: `/runs/${run.id}`,
    });
    const confirm = await asked.text();
    expect(confirm).toMatch(
      /<input id="confirm-once" type="checkbox" name="once" value="1" \/> Just this once/,
    );
    const ids = confirmedIds(confirm);
    const done = await confirmAccept(browser, confirm, { run: run.id, back: `/runs/${run.id}`, once: '1' });
    expect(done.status).toBe(303);
    for (const id of ids) expect((await getDecision(own.engine.store, id)).status).toBe('answered');
    expect(await listRules(own.engine.store)).toEqual([]);
    const notice = bulkNoticeOf(await (await browser.get(done.headers.get('Location')!)).text());
    expect(words(notice)).toContain(`${ids.length} just this once: nothing learned.`);
    expect(notice).not.toContain('/undo"');
  } finally {
    await own.cleanup();
  }
});

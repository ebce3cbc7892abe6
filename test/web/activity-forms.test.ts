/**
 * Activity without JavaScript: plain GET and POST forms. Questions come 50 to a page (a
 * cursor to the next), grouped on the page by run and sender domain, filtered by workflow,
 * run and sender; a group's "Accept the N suggestions" says what it will do and does it only
 * when confirmed, leaving irreversible suggestions for the person; checked questions are
 * answered together. The badge counts exactly what the list holds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { describeSuggestions, senderDomain } from '../../shared/web/activity-list.ts';
import { csrfOf, pageClient, pageText, pageWords, type PageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let b: PageClient;
let runIds: string[];

const SEEDED = 150;

beforeAll(async () => {
  h = await makeHarness();
  const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  const [template] = await listPending(h.engine.store);
  runIds = await seedWaiting(h.engine.store, await getRun(h.engine.store, run.id), template!, SEEDED, 3);
  b = pageClient(h.app);
}, 60_000);

afterAll(async () => {
  await h?.cleanup();
});

const text = (path: string) => pageText(b, path);
const rowIds = (page: string) => [...page.matchAll(/name="pick::(dec_[\w]+)"/g)].map((m) => m[1]!);
const words = pageWords;
const badgeOf = (page: string) => Number(/data-pending-badge\s*>(\d+)</.exec(page)?.[1] ?? 0);
const nextOf = (page: string) => /rel="next" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');

/** Every page of `path`, following "Next page" to the last. */
async function allPages(path: string): Promise<string[]> {
  const pages = [await text(path)];
  for (let next = nextOf(pages[0]!); next; next = nextOf(pages.at(-1)!)) pages.push(await text(next));
  return pages;
}

describe('the list', () => {
  it('shows 50 questions a page, every waiting question on exactly one page, and a badge of all of them', async () => {
    const waiting = await listPending(h.engine.store);
    expect(waiting.length).toBeGreaterThan(SEEDED);
    const pages = await allPages('/activity');
    expect(rowIds(pages[0]!)).toHaveLength(50);
    expect(badgeOf(pages[0]!)).toBe(waiting.length);
    expect(words(pages[0]!)).toContain(`Questions 1–50 of ${waiting.length}`);
    expect(pages).toHaveLength(Math.ceil(waiting.length / 50));
    expect(words(pages[1]!)).toContain(`Questions 51–100 of ${waiting.length}`);
    expect(pages[1]).toContain('rel="first" href="/activity"');
    const seen = pages.flatMap(rowIds);
    expect(seen.sort()).toEqual(waiting.map((d) => d.id).sort());
    for (const page of pages) expect(badgeOf(page)).toBe(waiting.length);
  });

  it('groups by run, then by sender domain, each group once per page', async () => {
    const page = await text('/activity');
    const runsShown = [...page.matchAll(/data-run="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(runsShown).size).toBe(runsShown.length);
    // Within the first run's section, every row's sender is of its domain group's heading.
    const section = page.slice(
      page.indexOf('data-run='),
      page.indexOf('data-run=', page.indexOf('data-run=') + 1),
    );
    for (const group of section.split('class="domain-group"').slice(1)) {
      const domain = /data-domain="([^"]+)"/.exec(group)![1]!;
      const senders = [...group.matchAll(/q-meta">\s*([^\s·]+)/g)].map((m) => m[1]!);
      expect(senders.length).toBeGreaterThan(0);
      for (const s of senders) expect(senderDomain(s)).toBe(domain);
    }
  });

  it('filters by run, sender and workflow, and says when nothing matches', async () => {
    const waiting = await listPending(h.engine.store);
    const run = runIds[1]!;
    const ofRun = waiting.filter((d) => d.run_id === run);
    const byRun = await text(`/activity?run=${run}`);
    expect(rowIds(byRun).length).toBe(Math.min(50, ofRun.length));
    expect(rowIds(byRun).every((id) => ofRun.some((d) => d.id === id))).toBe(true);
    expect(badgeOf(byRun)).toBe(waiting.length); // the badge counts the unfiltered list

    const news = waiting.filter((d) => senderDomain(d.sender) === 'news.example');
    const senderPages = await allPages('/activity?sender=news.example');
    const bySender = senderPages[0]!;
    expect(rowIds(bySender)).toHaveLength(Math.min(50, news.length));
    // Paging keeps the filters: every page matches, and together they are every match.
    expect(senderPages.flatMap(rowIds).sort()).toEqual(news.map((d) => d.id).sort());
    const runPages = await allPages(`/activity?run=${run}`);
    expect(runPages.flatMap(rowIds).sort()).toEqual(ofRun.map((d) => d.id).sort());
    if (runPages.length > 1)
      expect(nextOf(runPages[0]!)).toMatch(new RegExp(`^/activity\\?run=${run}&after=`));
    expect(words(bySender)).toContain('(those that match the filters below)');

    expect(rowIds(await text('/activity?workflow=inbox-triage'))).toHaveLength(50);
    const none = await text('/activity?workflow=no-such-workflow');
    expect(rowIds(none)).toEqual([]);
    expect(words(none)).toContain('Nothing waiting matches the filters.');
  });

  it('refuses a page cursor it never gave, in one line', async () => {
    const res = await b.get('/activity?after=nonsense');
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/not one this list gave; start again without it/);
  });
});

describe('answering many without JavaScript', () => {
  it('says what accepting a group does, does nothing until confirmed, then does exactly that', async () => {
    const page = await text('/activity');
    const before = await listPending(h.engine.store);
    // A group with suggestions to accept and an irreversible one among them.
    const inGroup = (d: Decision, o: Decision) =>
      d.run_id === o.run_id && senderDomain(d.sender) === senderDomain(o.sender);
    const sample = before.find(
      (o) =>
        o.reason === 'irreversible' &&
        o.subject.startsWith('Seeded') &&
        before.filter((d) => inGroup(d, o)).length > 4,
    )!;
    const run = sample.run_id;
    const domain = senderDomain(sample.sender);
    const group = before.filter((d) => inGroup(d, sample));
    const acceptable = group.filter((d) => d.reason !== 'irreversible');
    const irreversible = group.filter((d) => d.reason === 'irreversible');
    expect(acceptable.length).toBeGreaterThan(2);
    expect(irreversible.length).toBeGreaterThan(0);

    const asked = await b.post('/activity/accept', {
      _csrf: csrfOf(page),
      run,
      sender: domain,
      back: '/activity?sender=example',
    });
    expect(asked.status).toBe(200);
    const confirm = words(await asked.text());
    expect(confirm).toContain(`This will ${describeSuggestions(acceptable)}.`);
    expect(describeSuggestions(acceptable)).toMatch(/^archive \d+, /);
    expect(confirm).toContain(`Left for you: ${irreversible.length} question`);
    expect((await listPending(h.engine.store)).length).toBe(before.length); // nothing yet

    const csrf = csrfOf(page);
    const done = await b.post('/activity/accept', {
      _csrf: csrf,
      run,
      sender: domain,
      ids: acceptable.map((d) => d.id).join(','),
      back: '/activity?sender=example',
      confirm: '1',
    });
    expect(done.status).toBe(303);
    const location = done.headers.get('Location')!;
    expect(location).toMatch(/^\/activity\?sender=example&done=\d+/);
    for (const d of acceptable) {
      const now = await getDecision(h.engine.store, d.id);
      expect(now.status).toBe('answered');
      expect(now.answer?.action).toBe('approve_suggested');
    }
    for (const d of irreversible) expect((await getDecision(h.engine.store, d.id)).status).toBe('pending');
    const back = words(await text(location));
    expect(back).toContain(`Accepted ${acceptable.length} suggestions.`);
    expect(back).toContain(`${irreversible.length} question`);
    expect(back).toContain('left for you');
  });

  it("a sender group's button names the questions it shows, and the confirm step takes those alone", async () => {
    const page = await text('/activity');
    const forms = [...page.matchAll(/<form\s+class="inline-form accept"[\s\S]*?<\/form>/g)].map((m) => m[0]);
    const form = forms.find((f) => f.includes('name="ids"'))!;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form)![1]!;
    const ids = field('ids').split(',');
    const n = Number(/Accept the\s+(\d+) suggestion/.exec(words(form))![1]);
    const shown = await Promise.all(ids.map((id) => getDecision(h.engine.store, id)));
    expect(n).toBe(shown.filter((d) => d.reason !== 'irreversible').length);
    const ofDomain = (await listPending(h.engine.store)).filter(
      (d) => d.run_id === field('run') && senderDomain(d.sender) === field('sender'),
    );
    expect(ofDomain.length).toBeGreaterThanOrEqual(ids.length);

    const asked = await b.post('/activity/accept', {
      _csrf: csrfOf(page),
      run: field('run'),
      sender: field('sender'),
      ids: field('ids'),
      back: '/activity',
    });
    const confirm = await asked.text();
    expect(words(confirm)).toContain(
      `Accept ${n} suggestion${n === 1 ? '' : 's'} from ${field('sender')} in this run?`,
    );
    const planned = /name="ids" value="([^"]+)"/.exec(confirm)![1]!.split(',');
    expect(planned.every((id) => ids.includes(id))).toBe(true);
    expect(planned).toHaveLength(n);
  });

  it('answers the selected questions together; one no longer waiting is counted, not answered twice', async () => {
    const page = await text('/activity');
    const ids = rowIds(page).slice(0, 3);
    const gone = rowIds(page)[3]!;
    await b.post('/activity/answer', { _csrf: csrfOf(page), action: 'skip', [`pick::${gone}`]: '1' });
    expect((await getDecision(h.engine.store, gone)).answer?.action).toBe('skip');

    const fields: Record<string, string> = { _csrf: csrfOf(page), action: 'skip', back: '/activity' };
    for (const id of [...ids, gone]) fields[`pick::${id}`] = '1';
    const res = await b.post('/activity/answer', fields);
    expect(res.status).toBe(303);
    for (const id of ids) expect((await getDecision(h.engine.store, id)).answer?.action).toBe('skip');
    const back = words(await text(res.headers.get('Location')!));
    expect(back).toContain('Answered 3 questions: skip.');
    expect(back).toContain('1 could not be taken');
  });

  it('never accepts an irreversible suggestion from a selection: it is left for the person', async () => {
    const waiting = await listPending(h.engine.store);
    const irreversible = waiting.find((d) => d.reason === 'irreversible')!;
    const archive = waiting.find((d) => d.suggested_action === 'archive' && d.reason !== 'irreversible')!;
    const page = await text('/activity');
    const res = await b.post('/activity/answer', {
      _csrf: csrfOf(page),
      action: 'approve_suggested',
      [`pick::${irreversible.id}`]: '1',
      [`pick::${archive.id}`]: '1',
    });
    expect(res.status).toBe(303);
    expect((await getDecision(h.engine.store, irreversible.id)).status).toBe('pending');
    expect((await getDecision(h.engine.store, archive.id)).answer?.action).toBe('approve_suggested');
    expect(words(await text(res.headers.get('Location')!))).toContain('1 question left for you');
  });

  it('refuses a form without its token or without a run, and changes nothing', async () => {
    const before = (await listPending(h.engine.store)).length;
    const some: Decision = (await listPending(h.engine.store))[0]!;
    const forged = await b.post('/activity/answer', { action: 'skip', [`pick::${some.id}`]: '1' });
    expect(forged.status).toBe(403);
    const page = await text('/activity');
    const noRun = await b.post('/activity/accept', { _csrf: csrfOf(page) });
    expect(noRun.status).toBe(422);
    expect(await noRun.text()).toContain('Say which run');
    expect((await listPending(h.engine.store)).length).toBe(before);
  });

  it('has a plain form for every answer: rows, groups, the selection and the filters', async () => {
    const page = await text('/activity');
    const rows = rowIds(page);
    for (const id of rows) {
      expect(page).toContain(`action="/decide/${id}"`);
      expect(page).toMatch(new RegExp(`name="pick::${id}"[^>]*|form="pick"`));
    }
    expect(page).toMatch(
      /<form\s+id="pick"\s+class="pick-bar"\s+method="post"\s+action="\/activity\/answer"/,
    );
    expect(page).toMatch(/class="inline-form accept"\s+method="post"\s+action="\/activity\/accept"/);
    expect(page).toMatch(/<form class="filters" method="get" action="\/activity"/);
    expect(page).toContain('<script src="/assets/activity.js" defer></script>');
    const script = await b.get('/assets/activity.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('Content-Type')).toMatch(/javascript/);
  });

  it('returns to the page it was answered from, filters kept', async () => {
    const page = await text('/activity?sender=team.example');
    const [id] = rowIds(page);
    const res = await b.post(`/decide/${id}`, {
      _csrf: csrfOf(page),
      action: 'skip',
      next: '/activity?sender=team.example',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('Location')).toBe(`/activity?sender=team.example&answered=${id}`);
    const offsite = await b.post(`/decide/${rowIds(page)[1]}`, {
      _csrf: csrfOf(page),
      action: 'skip',
      next: '//evil.example',
    });
    expect(offsite.headers.get('Location')).not.toContain('evil');
  });
});

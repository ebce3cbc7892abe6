/**
 * The run page of a 1,000-item run: its markup stays a page long (the lists paged, the trace
 * collapsed), its nodes say what is true, and /runs/:id/progress says where the run is.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeMaildir, type MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { decisionsOfRun } from '../../shared/runs/decision-repository.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import type { Run } from '../../shared/records/runs.ts';
import { makeHarness, type Harness } from './support.ts';
import { pageClient } from './page-client.ts';

const ITEMS = 1000;

/** A day of mail the offline model mostly acts on (receipts, newsletters) with some it asks about. */
function bigInbox(count: number): MessageSpec[] {
  const kinds = [
    (i: number) => ({
      from: `billing${i % 7}@shop${i % 5}.example`,
      subject: `Your receipt #${i}: order total charged`,
      body: `Thanks for your order ${i}. Receipt total $${i}.00 charged to your card.`,
    }),
    (i: number) => ({
      from: 'digest@weekly.example',
      subject: `This week in infra #${i}`,
      body: `Your weekly newsletter. Unsubscribe any time.`,
      listUnsubscribe: `<https://weekly.example/u?id=${i}>`,
    }),
    (i: number) => ({
      from: `someone${i}@unknown${i}.example`,
      subject: `Quick question ${i}`,
      body: 'Hello, do you have a minute?',
    }),
    (i: number) => ({
      from: 'ruled@vendor.example',
      subject: `Vendor update ${i}`,
      body: 'An update from your vendor.',
    }),
  ];
  return Array.from({ length: count }, (_, i) => ({
    ...kinds[i % kinds.length]!(i),
    to: 'alex.morgan@northwind.example',
    date: new Date(Date.UTC(2026, 0, 1, 6, 0, i)),
    messageId: `<big-${i}@run.example>`,
  }));
}

let h: Harness;
let run: Run;

beforeAll(async () => {
  h = await makeHarness();
  await writeMaildir(path.join(h.dir, 'Maildir-inbox-triage'), bigInbox(ITEMS));
  await addRule(h.engine.store, {
    workflowId: null,
    match: { domain: 'vendor.example' },
    action: 'archive',
    note: 'vendor updates are noise',
  });
  run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
}, 120_000);

afterAll(async () => {
  await h?.cleanup();
});

const rows = (html: string, marker: string) => html.split(marker).length - 1;

describe('the run page of a 1,000-item run', () => {
  it('shows what it did 50 at a time, the first 10 questions and the trace collapsed', async () => {
    expect(run.status).toBe('waiting');
    const questions = await decisionsOfRun(h.engine.store, run);
    expect(questions.length).toBeGreaterThan(10);
    const page = await (await pageClient(h.app).get(`/runs/${run.id}`)).text();

    expect(rows(page, 'data-did-row')).toBe(50);
    const done = run.counts.acted + run.counts.declined + run.counts.failed;
    expect(page).toMatch(new RegExp(`What it did: ${done} items`));
    expect(page).toContain(`Page 1 of ${Math.ceil(done / 50)}`);
    expect(page).toContain(`href="/runs/${run.id}?did=1#did"`);

    // The questions: ten, and the rest in Activity filtered by this run.
    const section = page.slice(page.indexOf('data-questions'), page.indexOf('id="did-title"'));
    expect(rows(section, 'href="/decide/')).toBe(10);
    expect(section).toContain(`href="/activity?run=${run.id}"`);

    // The trace: closed, one page of 100 rows; the page's rows in all stay bounded.
    expect(page).toMatch(/<details data-trace-details\s*>/);
    expect(rows(page, '<tr class="trace-')).toBe(100);
    expect(rows(page, '<tr')).toBeLessThan(50 + 100 + 10 + 20);
    expect(page.length).toBeLessThan(400_000);
  });

  it('says who decided each item, naming the rule by its pattern', async () => {
    const pages = Math.ceil((run.counts.acted + run.counts.declined + run.counts.failed) / 50);
    const seen = new Set<string>();
    let ruleRow = '';
    for (let n = 0; n < pages && (seen.size < 2 || !ruleRow); n++) {
      const page = await (await pageClient(h.app).get(`/runs/${run.id}?did=${n}`)).text();
      for (const m of page.matchAll(/data-decided-by="(\w+)"/g)) seen.add(m[1]!);
      ruleRow ||= page.split('data-did-row').find((r) => r.includes('decider-rule')) ?? '';
    }
    expect(seen).toEqual(new Set(['confident', 'rule']));
    expect(ruleRow).toContain('ruled@vendor.example');
    expect(ruleRow).toContain('Archived');
    expect(ruleRow).toContain('anything from vendor.example');
  });

  it('pages the trace and the list independently, and keeps each other where they are', async () => {
    const page = await (await pageClient(h.app).get(`/runs/${run.id}?did=2&trace=3`)).text();
    expect(page).toMatch(/<details data-trace-details\s+open>/);
    expect(page).toContain('Page 3 of');
    expect(page).toContain(`href="/runs/${run.id}?did=2&amp;trace=4#trace"`);
    expect(page).toContain(`href="/runs/${run.id}?did=3&amp;trace=3#did"`);
    expect(rows(page, 'data-did-row')).toBe(50);
  });

  it('tells a waiting run truly: trigger done, executor paused, completer not started', async () => {
    const page = await (await pageClient(h.app).get(`/runs/${run.id}`)).text();
    expect(page).toMatch(
      /data-node="trigger">\s*<span class="node-name">trigger<\/span>\s*<span class="node-state" data-node-state>done/,
    );
    expect(page).toMatch(/data-node="executor">[\s\S]*?paused: waiting for you/);
    expect(page).not.toMatch(/trigger<\/span>\s*<span[^>]*>not started/);
  });

  it('lists only this run’s questions in Activity when asked by run', async () => {
    const page = await (await pageClient(h.app).get(`/activity?run=${run.id}`)).text();
    expect(page).toContain('data-run-filter');
    const waiting = (await decisionsOfRun(h.engine.store, run)).filter((d) => d.status === 'pending');
    // Activity shows 50 questions a page (issue 29), all of them this run's.
    expect(waiting.length).toBeGreaterThan(50);
    expect(rows(page, 'class="question"')).toBe(50);
    const other = await (await pageClient(h.app).get('/activity?run=run_other')).text();
    expect(rows(other, 'class="question"')).toBe(0);
  });

  it('answers /runs/:id/progress with where the run is, in a few hundred bytes', async () => {
    const res = await pageClient(h.app).get(`/runs/${run.id}/progress`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(1000);
    const progress = JSON.parse(text) as Record<string, unknown>;
    const current = await getRun(h.engine.store, run.id);
    expect(progress).toMatchObject({
      id: run.id,
      status: 'waiting',
      finished: false,
      counts: current.counts,
      nodes: { trigger: 'done', executor: 'paused', completer: 'idle' },
    });
    expect((await pageClient(h.app).get('/runs/run_nope/progress')).status).toBe(404);
  });
});

/**
 * The API lists what the CLI lists (issue 29): the same shapes as `--json`, the same filters,
 * a page at a time (`?limit=&cursor=` → `{items, next_cursor}`).
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { firesOf } from '../../shared/memory/rule-fires.ts';
import { ruleJson } from '../../shared/memory/rule-json.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { auditRowJson, runRowJson } from '../../shared/runs/list-json.ts';
import { listRuns } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { statsOf } from '../../shared/runs/stats.ts';
import { makeHarness, type Harness } from './support.ts';

interface Page<T = Record<string, unknown>> {
  items: T[];
  next_cursor: string | null;
}

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(async () => {
  await h.cleanup();
});

const get = async <T = Page>(path: string, status = 200): Promise<T> => {
  const res = await h.app.request(path, { headers: h.auth() });
  expect({ path, status: res.status }).toEqual({ path, status });
  return (await res.json()) as T;
};

/** Every item of a list, followed page by page. */
async function all(path: string, limit: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const page: Page = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) return items;
  }
  throw new Error('the pages never ended');
}

it('lists runs, decisions, rules and the audit in the CLI shapes, filtered and paged; stats as the CLI', async () => {
  const first = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
  const [answered, ...waiting] = await listPending(h.engine.store);
  await decide(h.engine, answered!.id, 'archive', null);
  const second = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });

  const runs = (await listRuns(h.engine.store)).map(runRowJson);
  expect(await all('/api/runs', 1)).toEqual(runs);
  expect((await get('/api/runs?status=waiting')).items.map((r) => r.run_id)).toContain(first.id);
  expect((await get(`/api/runs?workflow=nope`)).items).toEqual([]);
  expect(second.id).toBeDefined();

  const decisions = await all('/api/decisions', 2);
  expect(decisions.map((d) => d.decision_id)).toContain(answered!.id);
  const pendingNow = await get('/api/decisions?status=pending&limit=500');
  expect(pendingNow.items.map((d) => d.decision_id).sort()).toEqual(
    (await listPending(h.engine.store)).map((d) => d.id).sort(),
  );
  expect(pendingNow.next_cursor).toBeNull();
  // "waiting" is the word people use (and runs use) for a question not yet answered.
  expect(await get('/api/decisions?status=waiting&limit=500')).toEqual(pendingNow);
  const mine = await get(`/api/decisions?status=answered&run=${first.id}`);
  expect(mine.items).toEqual([
    expect.objectContaining({
      decision_id: answered!.id,
      status: 'answered',
      answer: expect.objectContaining({ action: 'archive', once: false, by: 'human' }),
    }),
  ]);
  const fromOne = await get(`/api/decisions?from=${encodeURIComponent(waiting[0]!.sender)}`);
  expect(fromOne.items.every((d) => d.sender === waiting[0]!.sender)).toBe(true);

  const rules = await listRules(h.engine.store);
  const fires = await firesOf(
    h.engine.store,
    rules.map((r) => r.id),
  );
  expect(await all('/api/rules', 1)).toEqual(rules.map((r) => ruleJson(r, fires.get(r.id))));
  expect((await get('/api/rules?source=you')).items).toEqual([]);

  const audit = (await listAudit(h.engine.store, { runId: first.id })).map(auditRowJson);
  expect(await all(`/api/audit?run=${first.id}`, 3)).toEqual(audit);
  expect(await get('/api/audit?run=run_nope', 404)).toEqual({
    error: expect.stringMatching(/no run "run_nope"/),
  });
  expect(await get('/api/decisions?run=run_nope', 404)).toEqual({
    error: expect.stringMatching(/no run "run_nope"/),
  });

  expect(await get('/api/stats')).toEqual(
    JSON.parse(JSON.stringify({ ...statsOf(await listRuns(h.engine.store)), runs_next_cursor: null })),
  );
});

it('refuses a bad query with a 400 of one line', async () => {
  for (const path of [
    '/api/runs?limit=0',
    '/api/runs?limit=501',
    '/api/runs?limit=ten',
    '/api/runs?colour=red',
    '/api/decisions?status=maybe',
    '/api/runs?cursor=bm9wZQ',
    '/api/stats?x=1',
  ]) {
    const body = await get<{ error: string }>(path, 400);
    expect(body.error).toMatch(/^(query|cursor)/);
    expect(body.error).not.toContain('\n');
  }
  expect((await h.app.request('/api/runs')).status).toBe(401);
});

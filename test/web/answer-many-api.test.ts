import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { makeHarness, type Harness } from './support.ts';

interface Result {
  id: string;
  action: string;
  ok: boolean;
  error?: string;
  learned_rule?: { id: string; pattern: string; action: string };
  learned?: string;
  run_status?: string;
}

let h: Harness;

beforeEach(async () => {
  h = await makeHarness();
});

afterEach(async () => {
  await h.cleanup();
});

async function startDemoRun(): Promise<string> {
  const res = await h.app.request('/api/workflows/inbox-triage/runs', { method: 'POST', headers: h.auth() });
  expect(res.status).toBe(202);
  await h.launcher.idle();
  return ((await res.json()) as { run_id: string }).run_id;
}

const post = (path: string, body?: unknown) =>
  h.app.request(path, {
    method: 'POST',
    headers: h.auth({ 'Content-Type': 'application/json' }),
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

it('POST /api/decisions answers each independently and says what each taught', async () => {
  const runId = await startDemoRun();
  const pending = await listPending(h.engine.store);
  expect(pending.length).toBeGreaterThanOrEqual(3);
  const [first, second, third] = pending;
  const res = await post('/api/decisions', {
    answers: [
      { id: first!.id, action: 'archive' },
      { id: 'dec_nope', action: 'archive' },
      { id: second!.id, action: 'launch_rockets' },
      { id: second!.id, action: 'archive', once: true, note: 'tidy' },
      { id: first!.id, action: 'skip' },
    ],
  });
  expect(res.status).toBe(200);
  const results = (await res.json()) as Result[];
  expect(results).toEqual([
    expect.objectContaining({
      id: first!.id,
      action: 'archive',
      ok: true,
      learned: `From now on: mail from ${first!.sender} → archive it`,
      learned_rule: { id: expect.stringMatching(/^rule_/), pattern: expect.any(String), action: 'archive' },
      run_status: 'waiting',
    }),
    { id: 'dec_nope', action: 'archive', ok: false, error: expect.stringMatching(/no decision "dec_nope"/) },
    { id: second!.id, action: 'launch_rockets', ok: false, error: expect.stringMatching(/not an option/) },
    expect.objectContaining({ id: second!.id, ok: true, learned: 'Nothing learned (just this once)' }),
    { id: first!.id, action: 'skip', ok: false, error: expect.stringMatching(/already answered/) },
  ]);
  expect(results[3]).not.toHaveProperty('learned_rule');
  // The once-answer taught nothing: the one rule is the first answer's.
  expect((await listRules(h.engine.store)).map((r) => r.id)).toEqual([results[0]!.learned_rule!.id]);

  // Undo revokes that rule alone; a second undo finds nothing.
  const undo = await post(`/api/rules/${results[0]!.learned_rule!.id}/undo`);
  expect(undo.status).toBe(200);
  expect(await undo.json()).toEqual({ revoked: results[0]!.learned_rule });
  expect(await listRules(h.engine.store)).toEqual([]);
  expect((await post(`/api/rules/${results[0]!.learned_rule!.id}/undo`)).status).toBe(404);

  // The rest with their suggestions, through the run's own route: the run completes.
  expect((await getRun(h.engine.store, runId)).status).toBe('waiting');
  const accepted = await post(`/api/runs/${runId}/accept-suggestions`);
  expect(accepted.status).toBe(200);
  const rest = (await accepted.json()) as Result[];
  expect(rest.map((r) => r.id)).toContain(third!.id);
  expect(rest.every((r) => r.ok && r.action === 'approve_suggested')).toBe(true);
  expect(rest.at(-1)!.run_status).toBe('completed');
  expect(await listPending(h.engine.store)).toEqual([]);
  expect((await getRun(h.engine.store, runId)).status).toBe('completed');
});

it('refuses a bad body with a 400 of one line, answering nothing', async () => {
  await startDemoRun();
  const [one] = await listPending(h.engine.store);
  const tooMany = Array.from({ length: 501 }, () => ({ id: one!.id, action: 'archive' }));
  for (const [body, message] of [
    [{ answers: tooMany }, /^body answers: holds more than 500 answers: send them in requests of 500$/],
    ['not json', /^body must be JSON like/],
    [{}, /^body answers: must be a list of answers/],
    [{ answers: [] }, /at least one answer/],
    [{ answers: [{ id: one!.id }] }, /^body answers\.0\.action: must be a string/],
    [
      { answers: [{ id: one!.id, action: 'archive', once: 'yes' }] },
      /answers\.0\.once: must be true or false/,
    ],
    [{ answers: [{ id: one!.id, action: 'archive', colour: 'red' }] }, /answers\.0/],
  ] as const) {
    const res = await post('/api/decisions', body);
    expect({ body: JSON.stringify(body).slice(0, 40), status: res.status }).toEqual({
      body: JSON.stringify(body).slice(0, 40),
      status: 400,
    });
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
  }
  expect((await listPending(h.engine.store)).map((d) => d.id)).toContain(one!.id);
  expect((await post('/api/runs/run_nope/accept-suggestions')).status).toBe(404);
  const anonymous = await h.app.request('/api/decisions', { method: 'POST', body: '{"answers":[]}' });
  expect(anonymous.status).toBe(401);
});

it('POST /api/decisions/:id takes "once" and says what the answer taught', async () => {
  await startDemoRun();
  const [one] = await listPending(h.engine.store);
  const res = await post(`/api/decisions/${one!.id}`, { action: 'skip', once: true });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual(
    expect.objectContaining({
      decision_id: one!.id,
      action: 'skip',
      learned: 'Nothing learned (just this once)',
    }),
  );
  expect(await listRules(h.engine.store)).toEqual([]);
});

it('an answer with "scope": "workflow" keeps its rule to the workflow, and Memory says so', async () => {
  await startDemoRun();
  const [one, two] = await listPending(h.engine.store);
  const bad = await post(`/api/decisions/${one!.id}`, { action: 'archive', scope: 'everywhere' });
  expect(bad.status).toBe(400);
  expect(await bad.text()).toMatch(/scope/);
  const res = await post(`/api/decisions/${one!.id}`, { action: 'archive', scope: 'workflow' });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { learned: string }).learned).toMatch(/\(in this workflow only\)$/);
  const kept = (await listRules(h.engine.store)).find((r) => r.decision_id === one!.id);
  expect(kept).toMatchObject({ scope: 'workflow', workflow_id: 'inbox-triage' });
  expect(kept?.source_key).toMatch(/^maildir:/);

  // The default: the rule belongs to the mailbox, for every workflow reading it.
  const [shared] = (await (
    await post('/api/decisions', { answers: [{ id: two!.id, action: 'archive' }] })
  ).json()) as Result[];
  expect(shared).toMatchObject({ ok: true });
  const mailbox = (await listRules(h.engine.store)).find((r) => r.decision_id === two!.id);
  expect(mailbox).toMatchObject({ scope: 'source' });

  const memory = await (await h.app.request('/memory', { headers: h.auth() })).text();
  expect(memory).toContain('only workflow');
  expect(memory).toContain(`every workflow reading ${mailbox!.source_key}`);
});

it('Memory filters its rules by ?q=, ?action= and ?scope=', async () => {
  await startDemoRun();
  const [one, two] = await listPending(h.engine.store);
  await post('/api/decisions', {
    answers: [
      { id: one!.id, action: 'archive', scope: 'workflow' },
      { id: two!.id, action: 'skip' },
    ],
  });
  const rules = await listRules(h.engine.store);
  expect(rules).toHaveLength(2);
  const shown = async (query: string) => {
    const page = await (await h.app.request(`/memory${query}`, { headers: h.auth() })).text();
    return rules.filter((r) => page.includes(`id="${r.id}"`)).map((r) => r.decision_id);
  };
  expect((await shown('')).sort()).toEqual([one!.id, two!.id].sort());
  expect(await shown(`?q=${encodeURIComponent(one!.sender.toUpperCase())}`)).toContain(one!.id);
  expect(await shown('?action=skip')).toEqual([two!.id]);
  expect(await shown('?scope=workflow')).toEqual([one!.id]);
  expect(await shown('?scope=source')).toEqual([two!.id]);
  expect(await shown('?q=no-such-rule-anywhere')).toEqual([]);
  const page = await (await h.app.request('/memory?q=abc&scope=source', { headers: h.auth() })).text();
  expect(page).toMatch(/name="q"\s+value="abc"/);
  expect(page).toMatch(/<option value="source"\s+selected/);
});

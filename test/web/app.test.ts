import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { stubEnv, unstubAllEnvs } from '../support/env.ts';
import { main } from '../../shared/cli/program.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { createApp } from '../../shared/web/app.ts';
import { API_KEY, makeEngine, makeHarness, type Harness } from './support.ts';

const PENDING_KEYS = [
  'confidence',
  'decision_id',
  'drafts', // the demo workflow offers draft_reply and file_ticket: their words are drafted
  'interrupt_id',
  'item_id',
  'options',
  'reasoning',
  'run_id',
  'sender',
  'subject',
  'suggested_action',
  'workflow_id',
];

let h: Harness;

beforeEach(async () => {
  h = await makeHarness();
});

afterEach(async () => {
  await h.cleanup();
});

/** Starts a run of the demo workflow over HTTP and waits until it has paused or finished. */
async function startDemoRun(): Promise<string> {
  const res = await h.app.request('/api/workflows/inbox-triage/runs', { method: 'POST', headers: h.auth() });
  expect(res.status).toBe(202);
  const body = (await res.json()) as { run_id: string };
  expect(Object.keys(body)).toEqual(['run_id']);
  await h.launcher.idle();
  return body.run_id;
}

const postDecision = (id: string, body: string) =>
  h.app.request(`/api/decisions/${id}`, {
    method: 'POST',
    headers: h.auth({ 'Content-Type': 'application/json' }),
    body,
  });

describe('open routes', () => {
  it('GET /healthz answers without auth', async () => {
    const res = await h.app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('GET / renders the overview with everything escaped and the pending count in amber', async () => {
    await saveWorkflow(h.engine.store, { ...h.workflow, id: 'xss', name: '<script>alert(1)</script>' });
    await startDemoRun();
    const res = await h.app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('<link rel="stylesheet" href="/assets/app.css" />');
    const css = await (await h.app.request('/assets/app.css')).text();
    expect(css).toMatch(/--amber: #f59e0b;[\s\S]*\.pending \{ background: var\(--amber-soft\)/);
    expect(css).toMatch(/\.badge \{ background: var\(--amber\)/);
    expect(page).toMatch(/class="pending">[1-9]\d* pending decisions?</);
    expect(page).not.toContain('handoff pending'); // the web app never sends a person to a terminal
    expect(page).toContain('waiting');
  });

  it('unknown API routes are JSON 404s; unknown pages get the styled Not found page', async () => {
    const api = await h.app.request('/api/nope', { headers: h.auth() });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'no route GET /api/nope' });
    const page = await h.app.request('/nope');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await page.text();
    expect(text).toContain('<h1>Not found</h1>');
    expect(text).toContain('/assets/app.css');
  });
});

describe('bearer auth', () => {
  it('refuses a missing or wrong token, and a ?key= on /api', async () => {
    for (const init of [
      {},
      { headers: { Authorization: 'Bearer wrong' } },
      { headers: { Authorization: API_KEY } },
    ]) {
      const res = await h.app.request('/api/workflows', init);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'missing or wrong bearer token' });
    }
    expect((await h.app.request(`/api/workflows?key=${API_KEY}`)).status).toBe(401);
    expect((await h.app.request('/api/workflows', { headers: h.auth() })).status).toBe(200);
  });

  it('fails closed when HANDOFF_API_KEY is not configured', async () => {
    const { env, engine } = await makeEngine();
    expect(env.HANDOFF_API_KEY).toBeUndefined();
    const app = createApp({ engine, env, runner: h.launcher });
    for (const token of ['', 'undefined', API_KEY]) {
      const res = await app.request('/api/pending', { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toContain('set HANDOFF_API_KEY');
    }
    expect((await app.request('/events/run_x?key=')).status).toBe(401);
  });
});

describe('workflows and runs', () => {
  it('GET /api/workflows lists id, name and trigger', async () => {
    const res = await h.app.request('/api/workflows', { headers: h.auth() });
    expect(await res.json()).toEqual([
      { id: 'inbox-triage', name: 'Inbox triage', trigger: { manual: true } },
    ]);
  });

  it('404s an unknown workflow or run', async () => {
    const post = await h.app.request('/api/workflows/nope/runs', { method: 'POST', headers: h.auth() });
    expect(post.status).toBe(404);
    expect(((await post.json()) as { error: string }).error).toMatch(/^no workflow "nope"/);
    const get = await h.app.request('/api/runs/run_nope', { headers: h.auth() });
    expect(get.status).toBe(404);
  });

  it('POST answers 202 at once and the run pauses for the person in the background', async () => {
    const runId = await startDemoRun();
    expect((await getRun(h.engine.store, runId)).trigger).toEqual({ kind: 'manual', detail: null });
    const res = await h.app.request(`/api/runs/${runId}`, { headers: h.auth() });
    expect(res.status).toBe(200);
    const summary = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(summary).sort()).toEqual([
      'acted',
      'by_memory',
      'counts',
      'deferred',
      'interrupt_id',
      'run_id',
      'status',
    ]);
    expect(summary).toMatchObject({ run_id: runId, status: 'waiting' });
    expect(summary.deferred).toBeGreaterThan(0);
    expect(summary.interrupt_id).toEqual(expect.any(String));
  });
});

describe('decisions', () => {
  it('lists pending decisions, validates answers, resumes the run on the last one, refuses a second answer', async () => {
    const runId = await startDemoRun();
    const interruptId = ((await getRun(h.engine.store, runId)).interrupt_id ?? '') as string;
    const pending = (await (await h.app.request('/api/pending', { headers: h.auth() })).json()) as Record<
      string,
      unknown
    >[];
    expect(pending.length).toBeGreaterThan(0);
    for (const d of pending) {
      expect(Object.keys(d).sort()).toEqual(PENDING_KEYS);
      expect(d).toMatchObject({ run_id: runId, interrupt_id: interruptId, workflow_id: 'inbox-triage' });
    }
    const first = pending[0]!.decision_id as string;

    for (const bad of [
      '{not json',
      '',
      '[]',
      '{"action": 3}',
      '{"note": "x"}',
      '{"action": "skip", "extra": 1}',
    ]) {
      const res = await postDecision(first, bad);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: string };
      expect(error).not.toContain('\n');
    }
    expect((await postDecision('dec_nope', '{"action": "skip"}')).status).toBe(404);
    const refused = await postDecision(first, '{"action": "launch_rockets"}');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toContain('is not an option');

    let last: Record<string, unknown> = {};
    for (const [i, d] of pending.entries()) {
      const note = i % 2 === 0 ? '"not now"' : 'null';
      const res = await postDecision(d.decision_id as string, `{"action": "skip", "note": ${note}}`);
      expect(res.status).toBe(200);
      last = (await res.json()) as Record<string, unknown>;
      expect(last).toMatchObject({ decision_id: d.decision_id, action: 'skip', run_id: runId });
      if (i < pending.length - 1) expect(last.run_status).toBe('waiting');
    }
    expect(last.run_status).toBe('completed');
    expect(await (await h.app.request('/api/pending', { headers: h.auth() })).json()).toEqual([]);

    const again = await postDecision(first, '{"action": "skip"}');
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toContain('already answered');
  });

  it('`handoff pending --json` prints exactly what GET /api/pending answers', async () => {
    await startDemoRun();
    const api = await (await h.app.request('/api/pending', { headers: h.auth() })).json();
    stubEnv('HANDOFF_STATE_DIR', h.env.HANDOFF_STATE_DIR);
    stubEnv('USE_DYNAMODB', 'false');
    stubEnv('HANDOFF_MODEL_PROVIDER', 'local');
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    try {
      expect(await main(['node', 'handoff', 'pending', '--json'])).toBe(0);
    } finally {
      write.mockRestore();
      unstubAllEnvs();
    }
    expect(JSON.parse(out)).toEqual(api);
  });
});

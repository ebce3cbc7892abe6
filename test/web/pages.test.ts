/**
 * The pages' safety at the HTTP level: the login, the session cookie, CSRF on every
 * form, the CSP, a closed public deployment, and Settings that change what the next
 * run does.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { readStoredSettings } from '../../shared/settings/settings.ts';
import { addRule, listRules } from '../../shared/memory/rules-repository.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { createApp } from '../../shared/web/app.ts';
import { makeHarness, readSse, type Harness } from './support.ts';

const PASSWORD = 'correct horse battery staple';
let h: Harness;

afterEach(async () => {
  await h?.cleanup();
});

type App = ReturnType<typeof createApp>;

/** A browser-like client: keeps the session cookie and reads the CSRF token off pages. */
function client(app: App, base = 'http://127.0.0.1:3000') {
  let cookie = '';
  const remember = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith('handoff_session='));
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
  return {
    get cookie() {
      return cookie;
    },
    get: async (path: string, headers: Record<string, string> = {}) =>
      remember(await app.request(`${base}${path}`, { headers: { Cookie: cookie, ...headers } })),
    post: async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      remember(
        await app.request(`${base}${path}`, {
          method: 'POST',
          headers: { Cookie: cookie, ...headers },
          body: new URLSearchParams(fields),
        }),
      ),
    async csrf(path = '/activity'): Promise<string> {
      const html = await (await this.get(path)).text();
      const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
      if (!token) throw new Error(`no CSRF token on ${path}`);
      return token;
    },
  };
}

async function pausedRun(): Promise<string> {
  const run = await startRun(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
  expect(run.status).toBe('waiting');
  return run.id;
}

describe('with HANDOFF_UI_PASSWORD set', () => {
  it('every page needs a login; the session cookie is HttpOnly, SameSite=Strict, Secure over https', async () => {
    // Served on loopback and, over https, behind a proxy at the UI base URL.
    h = await makeHarness({ HANDOFF_UI_PASSWORD: PASSWORD, UI_BASE_URL: 'https://handoff.example' });
    const runId = await pausedRun();
    const browser = client(h.app);
    for (const path of ['/', '/activity', '/memory', '/settings', '/runs', `/runs/${runId}`]) {
      const res = await browser.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('Location')).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    expect((await browser.get(`/runs/${runId}/events`)).status).toBe(401);
    const decision = (await listPending(h.engine.store))[0]!;
    expect((await browser.get(`/decide/${decision.id}`)).status).toBe(303);

    const csrf = await browser.csrf('/login');
    expect((await browser.post('/login', { password: PASSWORD })).status).toBe(403); // no CSRF token
    const wrong = await browser.post('/login', { _csrf: csrf, password: 'guess' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Wrong password.');
    const before = browser.cookie;
    const right = await browser.post('/login', { _csrf: csrf, password: PASSWORD, next: '/activity' });
    expect(right.status).toBe(303);
    expect(right.headers.get('Location')).toBe('/activity');
    const cookie = right.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    expect(browser.cookie).not.toBe(before); // a fresh session id at login
    expect((await browser.get('/activity')).status).toBe(200);
    expect((await browser.get(`/decide/${decision.id}`)).status).toBe(200);

    const overHttps = client(h.app, 'https://handoff.example');
    const token = await overHttps.csrf('/login');
    const secure = await overHttps.post('/login', { _csrf: token, password: PASSWORD });
    expect(secure.headers.getSetCookie()[0]).toMatch(/; Secure/);
  });

  it('refuses a forged or tampered cookie, and a next= that leaves the site', async () => {
    h = await makeHarness({ HANDOFF_UI_PASSWORD: PASSWORD });
    const forged = Buffer.from(JSON.stringify({ sid: 'x', exp: 9e9, auth: true })).toString('base64url');
    const res = await h.app.request('/', { headers: { Cookie: `handoff_session=${forged}.bad` } });
    expect(res.status).toBe(303);
    for (const next of ['https://evil.example/', '//evil.example', '/\\evil.example']) {
      const browser = client(h.app);
      const csrf = await browser.csrf('/login');
      const out = await browser.post('/login', { _csrf: csrf, password: PASSWORD, next });
      expect(out.headers.get('Location')).toBe('/');
    }
  });
});

describe('CSRF', () => {
  it('refuses every state-changing POST without the token (403) and changes nothing', async () => {
    h = await makeHarness();
    const runId = await pausedRun();
    const rule = await addRule(h.engine.store, {
      workflowId: null,
      match: { sender: 'a@b.example' },
      action: 'archive',
      note: null,
    });
    const decision = (await listPending(h.engine.store))[0]!;
    const browser = client(h.app);
    const valid = await browser.csrf();
    const stranger = client(h.app);
    const otherToken = await stranger.csrf(); // a real token, but of another session
    for (const token of [undefined, '', 'forged', otherToken]) {
      const extra = token === undefined ? {} : { _csrf: token };
      for (const [path, fields] of [
        ['/runs', { workflow_id: 'inbox-triage' }],
        [`/decide/${decision.id}`, { action: 'skip', note: 'x' }],
        [`/memory/${rule.id}/delete`, {}],
        ['/settings', { confidence_threshold: '0.9', notify_channel: 'sns', ui_base_url: '' }],
        ['/logout', {}],
      ] as const) {
        const res = await browser.post(path, { ...fields, ...extra });
        expect(res.status).toBe(403);
      }
    }
    expect((await listRuns(h.engine.store)).map((r) => r.id)).toEqual([runId]);
    expect((await listPending(h.engine.store)).some((d) => d.id === decision.id)).toBe(true);
    expect((await listRules(h.engine.store)).map((r) => r.id)).toEqual([rule.id]);
    expect(await readStoredSettings(h.engine.store)).toBeNull();

    // With the token, the same forms work.
    const answered = await browser.post(`/decide/${decision.id}`, {
      _csrf: valid,
      action: 'skip',
      next: '/activity',
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get('Location')).toBe(`/activity?answered=${decision.id}`);
    const started = await browser.post('/runs', { _csrf: valid, workflow_id: 'inbox-triage' });
    expect(started.headers.get('Location')).toMatch(/^\/runs\/run_/);
    expect((await browser.post(`/memory/${rule.id}/delete`, { _csrf: valid })).status).toBe(303);
    expect((await listRules(h.engine.store)).map((r) => r.id)).not.toContain(rule.id);
  });
});

describe('headers and deployments', () => {
  it('serves pages with a strict CSP, no caching, and styles and scripts only from /assets', async () => {
    h = await makeHarness();
    const res = await h.app.request('/');
    expect(res.headers.get('Content-Security-Policy')).toBe(
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const page = await res.text();
    expect(page).not.toMatch(/<style|style="|<script>|\son[a-z]+=/i);
    for (const [path, type] of [
      ['/assets/app.css', 'text/css'],
      ['/assets/inspector.js', 'text/javascript'],
      ['/assets/settings.js', 'text/javascript'],
    ]) {
      const asset = await h.app.request(path!);
      expect(asset.headers.get('Content-Type')).toMatch(new RegExp(`^${type}`));
    }
    expect((await h.app.request('/assets/..%2Fapp.ts')).status).toBe(404);
  });

  it('a public deployment without a password opens only signed decision links', async () => {
    h = await makeHarness();
    const app = createApp({ engine: h.engine, env: h.env, runner: h.launcher, requireToken: true });
    for (const path of ['/', '/activity', '/memory', '/settings', '/runs']) {
      const res = await app.request(path);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('Set HANDOFF_UI_PASSWORD');
    }
  });

  it('behind a password a public deployment opens the pages, and its inspector re-reads instead of streaming', async () => {
    h = await makeHarness({ HANDOFF_UI_PASSWORD: PASSWORD });
    const runId = await pausedRun();
    const app = createApp({ engine: h.engine, env: h.env, runner: h.launcher, requireToken: true });
    const browser = client(app);
    const csrf = await browser.csrf('/login');
    expect((await browser.post('/login', { _csrf: csrf, password: PASSWORD })).status).toBe(303);
    const page = await (await browser.get(`/runs/${runId}`)).text();
    expect(page).toContain('data-live="poll"');
    const local = await (
      await client(createApp({ engine: h.engine, env: h.env })).get(`/runs/${runId}`)
    ).status;
    expect(local).toBe(303); // the password applies locally too
  });

  it("streams the inspector's feed to a page session", async () => {
    h = await makeHarness();
    const runId = await pausedRun();
    const browser = client(h.app);
    await browser.get('/');
    const res = await browser.get(`/runs/${runId}/events`);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    const { events } = await readSse(res.body!, (e) => e.event === 'asked');
    expect(events[0]?.event).toBe('started');
    expect((await browser.get('/runs/run_nope/events')).status).toBe(404);
  });
});

describe('Settings', () => {
  it('a stored threshold changes what the next run asks; a workflow’s own threshold still wins', async () => {
    h = await makeHarness();
    const { confidence_threshold: _own, ...noThreshold } = h.workflow;
    await saveWorkflow(h.engine.store, { ...noThreshold, id: 'plain', name: 'Plain' });
    const browser = client(h.app);
    const csrf = await browser.csrf('/settings');
    const bad = await browser.post('/settings', {
      _csrf: csrf,
      confidence_threshold: '1',
      notify_channel: 'sns',
      ui_base_url: 'javascript:alert(1)',
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('must be an http:// or https:// address');
    expect(await readStoredSettings(h.engine.store)).toBeNull();

    const saved = await browser.post('/settings', {
      _csrf: csrf,
      confidence_threshold: '1',
      notify_channel: 'sns',
      ui_base_url: 'https://handoff.example.com',
    });
    expect(saved.status).toBe(303);
    expect(h.engine.settings.uiBaseUrl).toBe('https://handoff.example.com'); // links use it at once

    const plain = await startRun(h.engine, 'plain', { kind: 'manual', detail: null });
    const own = await startRun(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
    const asked = async (id: string) => (await getRun(h.engine.store, id)).counts;
    expect((await asked(plain.id)).confident).toBe(0); // at 1.0 everything is asked
    expect((await asked(own.id)).confident).toBeGreaterThan(0); // its own 0.7 still applies
  });
});

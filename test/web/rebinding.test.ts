/**
 * DNS rebinding and cross-site changes against the real local server: a page whose
 * name was pointed at 127.0.0.1 reaches the port but not the app, and a change sent
 * from another site is refused, whatever credentials ride along.
 */
import { createHmac } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Env } from '../../shared/config/env.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { readStoredSettings } from '../../shared/settings/settings.ts';
import { createApp } from '../../shared/web/app.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { API_KEY, WEBHOOK_SECRET, makeEngine } from './support.ts';
import { hashTree } from '../support/hash-tree.ts';

let dir: string;
let env: Env;
let engine: EngineDeps;
let server: RunningServer | undefined;
let port: number;

beforeEach(async () => {
  ({ dir, env, engine } = await makeEngine({
    HANDOFF_API_KEY: API_KEY,
    HANDOFF_WEBHOOK_SECRET: WEBHOOK_SECRET,
  }));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

async function start(overrides: Partial<Env> = {}): Promise<void> {
  server = await serve({ env: { ...env, ...overrides }, engine, port: 0, print: () => {} });
  port = Number(new URL(server.url).port);
}

interface Answer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** One request to the server with exactly these headers (fetch cannot set `Host`). */
function send(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body = '',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathAndQuery,
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        if (res.headers['content-type']?.startsWith('text/event-stream')) {
          res.destroy(); // a live stream never ends: its headers are the answer
          resolve({ status: res.statusCode ?? 0, text, headers: res.headers });
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A browser session at the server's own address: its cookie and a form's CSRF token. */
async function session(): Promise<{ cookie: string; csrf: string }> {
  const page = await send('GET', '/settings', { Host: `127.0.0.1:${port}` });
  const cookie = (page.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('handoff_session='))
    ?.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!cookie || !csrf) throw new Error(`no session from /settings (${page.status})`);
  return { cookie, csrf };
}

/** Every file under the state directory (the store, the demo Maildir, the keys), hashed. */
const stateSnapshot = () => hashTree(env.HANDOFF_STATE_DIR);

async function pausedRun(): Promise<{ runId: string; decisionId: string }> {
  const run = await startRun(engine, 'inbox-triage', { kind: 'manual', detail: null });
  const decision = (await listPending(engine.store)).find((d) => d.run_id === run.id);
  if (!decision) throw new Error('the demo run asked nothing');
  return { runId: run.id, decisionId: decision.id };
}

describe('a page that rebinds its name to 127.0.0.1', () => {
  it('gets 403 on every route, with credentials or without, and changes nothing', async () => {
    await start();
    const { runId, decisionId } = await pausedRun();
    const { cookie, csrf } = await session();
    const before = await stateSnapshot();

    const attacker = `rebind.attacker.example:${port}`;
    const maildir = path.join(env.HANDOFF_STATE_DIR, 'demo', 'Maildir');
    const workflowYaml = demoWorkflowYaml(maildir).replace('name: Inbox triage', 'name: Owned');
    const form = new URLSearchParams({
      _csrf: csrf,
      action: 'archive',
      workflow_id: 'inbox-triage',
      ui_base_url: `http://${attacker}`,
      confidence_threshold: '0.1',
    }).toString();
    const hook = JSON.stringify({ from: 'attacker' });
    const bodyFor = (method: string, route: string): { body: string; headers: Record<string, string> } => {
      if (method === 'GET') return { body: '', headers: {} };
      if (route.startsWith('/hooks/')) {
        const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(hook).digest('hex')}`;
        return {
          body: hook,
          headers: { 'Content-Type': 'application/json', 'X-Handoff-Signature': signature },
        };
      }
      if (route.startsWith('/api/decisions/'))
        return { body: '{"action":"archive"}', headers: { 'Content-Type': 'application/json' } };
      if (route.startsWith('/api/'))
        return { body: workflowYaml, headers: { 'Content-Type': 'application/yaml' } };
      return { body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } };
    };
    const concrete = (route: string) =>
      route
        .replace('/decide/:id', `/decide/${decisionId}`)
        .replace('/api/decisions/:id', `/api/decisions/${decisionId}`)
        .replace(/\/runs\/:id|\/api\/runs\/:id|\/events\/:runId/, (m) => m.replace(/:\w+$/, runId))
        .replace('/assets/:name', '/assets/app.css')
        .replace(/:\w+/g, 'inbox-triage');

    // Every route the app serves (taken from the app itself, so a new route is covered too).
    const routes = createApp({ engine, env })
      .routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE')); // the workflow last
    expect(routes.length).toBeGreaterThan(20);
    const answers: Record<string, string> = {};
    for (const { method, path: route } of routes) {
      const { body, headers } = bodyFor(method, route);
      const auth = { Cookie: cookie, Authorization: `Bearer ${API_KEY}` };
      const sent = { Host: attacker, Origin: `http://${attacker}`, ...auth, ...headers };
      const answer = await send(method, concrete(route), sent, body);
      const session = answer.headers['set-cookie'] ? ' +session' : '';
      answers[`${method} ${route}`] =
        `${answer.status} ${answer.headers['content-type']}${session} ${answer.text.slice(0, 100)}`;
    }
    const refused = `403 text/plain; charset=UTF-8 refused: "${attacker}" is not this server's address or its UI base URL's\n`;
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((route) => [route, refused])));

    expect(await stateSnapshot()).toEqual(before);
    expect(await readStoredSettings(engine.store)).toBeNull();
    expect((await listPending(engine.store)).map((d) => d.id)).toContain(decisionId);
  });

  it('is told apart from the names the server has: loopback, UI_BASE_URL, and a UI base URL saved in Settings', async () => {
    await start({ UI_BASE_URL: 'https://proxy.example.test' });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      'LOCALHOST',
      'proxy.example.test',
    ])
      expect((await send('GET', '/healthz', { Host: host })).status).toBe(200);
    for (const host of ['saved.example.test', 'localhost.attacker.example', '127.0.0.1.attacker.example'])
      expect((await send('GET', '/healthz', { Host: host })).status).toBe(403);

    // A malformed Host never reaches the app (the HTTP server or the guard refuses it).
    expect((await send('GET', '/healthz', { Host: 'user@127.0.0.1' })).status).toBe(400);

    const { cookie, csrf } = await session();
    const saved = await send(
      'POST',
      '/settings',
      { Host: `127.0.0.1:${port}`, Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ _csrf: csrf, ui_base_url: 'https://saved.example.test' }).toString(),
    );
    expect(saved.status).toBe(303);
    expect((await send('GET', '/healthz', { Host: 'saved.example.test' })).status).toBe(200);
  });
});

describe('a change sent from another site', () => {
  it('is refused with Origin of another site or "null"; a same-origin form, a form without Origin and an API call are not', async () => {
    await start({ UI_BASE_URL: 'https://proxy.example.test' });
    const { decisionId } = await pausedRun();
    const { cookie, csrf } = await session();
    const own = `127.0.0.1:${port}`;
    const saveSettings = (extra: Record<string, string>, threshold: string) =>
      send(
        'POST',
        '/settings',
        { Host: own, Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded', ...extra },
        new URLSearchParams({ _csrf: csrf, confidence_threshold: threshold }).toString(),
      );

    const before = await stateSnapshot();
    for (const origin of ['http://evil.example', 'null', `http://localhost:${port + 1}`, `http://${own}/x`]) {
      const answer = await saveSettings({ Origin: origin }, '0.1');
      expect(answer.status).toBe(403);
      expect(answer.text).toBe(
        `refused: a change sent from another site (Origin "${origin}"); nothing changed\n`,
      );
    }
    const api = await send(
      'POST',
      `/api/decisions/${decisionId}`,
      {
        Host: own,
        Origin: 'http://evil.example',
        Authorization: `Bearer ${API_KEY}`,
        'Content-Type': 'application/json',
      },
      '{"action":"archive"}',
    );
    expect(api.status).toBe(403);
    expect(await stateSnapshot()).toEqual(before);

    // The server's own origin, the UI base URL's (a proxy in front), and no Origin at all (not a browser).
    expect((await saveSettings({ Origin: `http://${own}` }, '0.6')).status).toBe(303);
    expect((await saveSettings({ Origin: 'https://proxy.example.test' }, '0.65')).status).toBe(303);
    expect((await saveSettings({}, '0.8')).status).toBe(303);
    expect((await readStoredSettings(engine.store))?.confidence_threshold).toBe(0.8);
    const answered = await send(
      'POST',
      `/api/decisions/${decisionId}`,
      { Host: own, Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      '{"action":"archive"}',
    );
    expect(answered.status).toBe(200);
  });
});

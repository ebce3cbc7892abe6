/**
 * The API keeps workspaces apart: `X-Handoff-Workspace` picks one (absent: `default`, or
 * the one a scoped key is limited to); a key scoped to A gets 404 for B's runs, decisions
 * and credentials, and changes nothing there. The pages: Activity lists the selected
 * workspace's questions only (its badge counts exactly those), says how many wait in each
 * other workspace with a button that switches to it, and answers nothing of another workspace
 * from its forms; the switcher remembers a choice.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { createApp } from '../../shared/web/app.ts';
import { createRunLauncher, type RunLauncher } from '../../shared/web/run-launcher.ts';
import { addApiKey, revokeApiKey } from '../../shared/workspaces/api-keys.ts';
import { openPlatform, type Platform } from '../../shared/workspaces/platform.ts';
import { addDemoWorkflow } from '../web/support.ts';

const ENV_KEY = 'env-key-0123456789abcdef';
let dir: string;
let platform: Platform;
let app: Hono;
let launcher: RunLauncher;
let keyA: string;
let keyB: string;
let runB: string;
let pendingB: Decision[];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-api-'));
  const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state'), HANDOFF_API_KEY: ENV_KEY });
  platform = await openPlatform(env);
  const a = await platform.registry.add('team-a');
  const b = await platform.registry.add('team-b');
  const engineB = platform.engineFor(b.id);
  engineB.notifier = { notify: async () => {} };
  await addDemoWorkflow(engineB, dir);
  await engineB.credentials.set('TEAM_B_TOKEN', new Secret('b-secret-value'));
  launcher = createRunLauncher(platform.engineFor('default'));
  app = createApp({ engine: platform.engineFor('default'), env, runner: launcher, platform });
  const run = await createRunFor(engineB, 'inbox-triage', { kind: 'manual', detail: null });
  launcher.launch(run, engineB);
  await launcher.idle();
  runB = run.id;
  pendingB = await listPending(engineB.store);
  expect(pendingB.length).toBeGreaterThan(0);
  keyA = (await addApiKey(platform.store, a.id)).key;
  keyB = (await addApiKey(platform.store, b.id)).key;
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const call = (url: string, key: string, workspace?: string, init: RequestInit = {}) =>
  app.request(url, {
    ...init,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(workspace ? { 'X-Handoff-Workspace': workspace } : {}),
      ...(init.body ? { 'Content-Type': 'application/json' } : {}),
    },
  });

describe('the API across workspaces', () => {
  it('serves the workspace the header names, with the server key', async () => {
    expect((await call(`/api/runs/${runB}`, ENV_KEY, 'team-b')).status).toBe(200);
    expect((await call(`/api/runs/${runB}`, ENV_KEY)).status).toBe(404); // default has no such run
    expect(await (await call('/api/pending', ENV_KEY, 'team-b')).json()).toHaveLength(pendingB.length);
    expect(await (await call('/api/pending', ENV_KEY)).json()).toEqual([]);
    const unknown = await call('/api/pending', ENV_KEY, 'nowhere');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'no workspace "nowhere" (see: handoff workspaces)' });
  });

  it("gives a key scoped to A a 404 for B's runs, decisions and credentials, and changes nothing", async () => {
    for (const workspace of [undefined, 'team-b']) {
      expect((await call(`/api/runs/${runB}`, keyA, workspace)).status).toBe(404);
      const answer = await call(`/api/decisions/${pendingB[0]!.id}`, keyA, workspace, {
        method: 'POST',
        body: JSON.stringify({ action: 'archive' }),
      });
      expect(answer.status).toBe(404);
    }
    expect(await (await call('/api/credentials', keyA)).json()).toEqual([]);
    expect((await call('/api/credentials', keyA, 'team-b')).status).toBe(404);
    // Nor set or delete them: 404, and B's credential is as it was.
    const put = { method: 'PUT', body: JSON.stringify({ value: 'from-a' }) };
    expect((await call('/api/credentials/TEAM_B_TOKEN', keyA, 'team-b', put)).status).toBe(404);
    expect((await call('/api/credentials/TEAM_B_TOKEN', keyA, 'team-b', { method: 'DELETE' })).status).toBe(
      404,
    );
    expect((await call('/api/credentials/TEAM_B_TOKEN', keyA, undefined, { method: 'DELETE' })).status).toBe(
      404,
    );
    expect((await platform.engineFor('team-b').credentials.get('TEAM_B_TOKEN'))?.reveal()).toBe(
      'b-secret-value',
    );
    expect(await (await call('/api/pending', keyA)).json()).toEqual([]);
    expect(await (await call('/api/workspaces', keyA)).json()).toEqual([
      { id: 'team-a', name: 'team-a', pending: 0 },
    ]);
    // B's questions are all still waiting.
    expect(await listPending(platform.engineFor('team-b').store)).toHaveLength(pendingB.length);
  });

  it("lets B's own key in, and no further", async () => {
    expect((await call(`/api/runs/${runB}`, keyB)).status).toBe(200); // no header: its workspace
    expect((await call(`/api/runs/${runB}`, keyB, 'default')).status).toBe(404);
    const names = (await (await call('/api/credentials', keyB)).json()) as { name: string }[];
    expect(names.map((n) => n.name)).toEqual(['TEAM_B_TOKEN']);
    expect(JSON.stringify(names)).not.toContain('b-secret-value');
  });

  it('refuses a revoked key and a made-up one', async () => {
    const { key, record } = await addApiKey(platform.store, null);
    expect((await call('/api/pending', key, 'team-b')).status).toBe(200);
    await revokeApiKey(platform.store, record.id);
    expect((await call('/api/pending', key, 'team-b')).status).toBe(401);
    expect((await call('/api/pending', `hk_${'0'.repeat(12)}_${'x'.repeat(43)}`)).status).toBe(401);
  });
});

describe('the pages across workspaces', () => {
  it("lists the selected workspace's questions on Activity only, and names the others' with a switch", async () => {
    const page = await app.request('/activity');
    expect(page.status).toBe(200);
    const text = await page.text();
    // `default` has none: none of team-b's are listed, and the badge (none) counts exactly that list.
    for (const d of pendingB) expect(text).not.toContain(d.id);
    expect(text).not.toMatch(/class="badge" data-pending-badge/);
    expect(text).toContain('Nothing is waiting for you.');
    expect(text).toContain(`team-b (${pendingB.length} waiting)`);
    expect(text).toContain('<select id="workspace-select" name="workspace">');
    // One line says how many wait in team-b; its button switches there and comes back to Activity.
    const elsewhere = /<p class="muted small waiting-elsewhere"[\s\S]*?<\/p>/.exec(text)![0];
    expect(elsewhere.replace(/\s+/g, ' ')).toContain(`${pendingB.length} in team-b`);
    expect(elsewhere).toContain('name="workspace" value="team-b"');
    expect(elsewhere).toContain('name="next" value="/activity"');

    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text)![1]!;
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: {
        Cookie: cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    // A selection naming team-b's questions, sent in `default`, answers none of them.
    const picks = Object.fromEntries(pendingB.map((d) => [`pick:team-b:${d.id}`, '1']));
    const refused = await app.request(
      '/activity/answer',
      form({ action: 'skip', back: '/activity', ...picks }),
    );
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toContain(`refused=${pendingB.length}`);
    expect(await listPending(platform.engineFor('team-b').store)).toHaveLength(pendingB.length);

    const moved = await app.request('/workspace', form({ workspace: 'team-b', next: '/activity' }));
    expect(moved.status).toBe(303);
    expect(moved.headers.get('location')).toBe('/activity');
    const inB = moved.headers.get('set-cookie')!.split(';')[0]!;
    const activityB = await (
      await app.request('/activity', { headers: { Cookie: `${cookie}; ${inB}` } })
    ).text();
    for (const d of pendingB) expect(activityB).toContain(`action="/decide/${d.id}?workspace=team-b"`);
    expect(activityB).toMatch(new RegExp(`class="badge" data-pending-badge\\s*>${pendingB.length}<`));

    // Answering from team-b's Activity answers in team-b.
    const target = pendingB[0]!;
    const answered = await app.request(
      `/decide/${target.id}?workspace=team-b`,
      form({ action: 'skip', next: '/activity' }),
    );
    expect(answered.status).toBe(303);
    const left = await listPending(platform.engineFor('team-b').store);
    expect(left.map((d) => d.id)).not.toContain(target.id);
    expect(left).toHaveLength(pendingB.length - 1);

    // The switcher remembers team-b for the pages.
    const switched = await app.request('/workspace', {
      method: 'POST',
      headers: {
        Cookie: cookie,
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
      },
      body: new URLSearchParams({ _csrf: csrf, workspace: 'team-b', next: '/runs' }).toString(),
    });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe('/runs');
    const remembered = switched.headers.get('set-cookie')!.split(';')[0]!;
    const runs = await app.request('/runs', { headers: { Cookie: `${cookie}; ${remembered}` } });
    expect(await runs.text()).toContain(runB);
    const inDefault = await app.request('/runs', { headers: { Cookie: cookie } });
    expect(await inDefault.text()).not.toContain(runB);
  });
});

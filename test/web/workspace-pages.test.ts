/**
 * The Workspaces pages over HTTP, on a platform as the local server has it: create one
 * (and it opens), rename it, delete it only after typing its name, with what is lost
 * listed; a member (workspace-scoped key) is refused.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { runAs } from '../../shared/access/actor.ts';
import { memberOf } from '../../shared/access/member.ts';
import { loadEnv, type Env } from '../../shared/config/env.ts';
import { createApp } from '../../shared/web/app.ts';
import { openPlatform, type Platform } from '../../shared/workspaces/platform.ts';
import { addDemoWorkflow } from './support.ts';
import { pageClient, type PageClient } from './page-client.ts';

let dir: string;
let env: Env;
let platform: Platform;
let app: ReturnType<typeof createApp>;
let page: PageClient;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-ws-pages-'));
  env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') });
  platform = await openPlatform(env);
  app = createApp({ engine: platform.engineFor('default'), env, platform });
  page = pageClient(app);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

it('creates a workspace from the browser and opens it: its Overview sends no one to a terminal', async () => {
  const bad = await page.submit('/workspaces', { name: 'Team Ops' }, '/workspaces');
  expect(bad.status).toBe(422);
  expect(await bad.text()).toMatch(
    /data-error>workspace name &quot;Team Ops&quot; is not valid: .*try &quot;team-ops&quot;/,
  );
  expect((await platform.registry.list()).map((w) => w.name)).toEqual(['default']);

  const created = await page.submit('/workspaces', { name: 'team-ops' }, '/workspaces');
  expect(created.status).toBe(303);
  expect(created.headers.get('location')).toBe('/?created=team-ops');
  const overview = await (await page.get('/?created=team-ops')).text();
  expect(overview).toContain('Created the workspace team-ops: it is open now.');
  expect(overview).toMatch(/<option value="team-ops"\s+selected/);
  expect(overview).toContain('data-no-workflows');
  expect(overview).toContain('href="/chat"');
  expect(overview).not.toMatch(/handoff (workflows|pending|decide)/);
});

it('renames a workspace, and deletes one only when its name is typed, listing what goes', async () => {
  const added = await platform.registry.add('client-a');
  const engine = platform.engineFor(added.id);
  await addDemoWorkflow(engine, dir);
  await engine.credentials.set(
    'MAIL_PASSWORD',
    new (await import('../../shared/credentials/secret.ts')).Secret('x'),
  );

  const renamed = await page.submit(`/workspaces/${added.id}/rename`, { name: 'client-b' }, '/workspaces');
  expect(renamed.headers.get('location')).toBe('/workspaces?renamed=client-b');
  expect((await platform.registry.byId(added.id))?.name).toBe('client-b');
  const clash = await page.submit(`/workspaces/${added.id}/rename`, { name: 'default' }, '/workspaces');
  expect(clash.status).toBe(422);
  expect(await clash.text()).toContain('workspace &quot;default&quot; already exists');

  const confirm = await (await page.get(`/workspaces/${added.id}/delete`)).text();
  const lost = confirm.split('data-lost')[1]!.split('</ul>')[0]!;
  expect(lost).toContain('1 workflow');
  expect(lost).toContain('1 credential');
  const wrong = await page.submit(`/workspaces/${added.id}/delete`, { confirm: 'client' }, '/workspaces');
  expect(wrong.status).toBe(422);
  expect(await wrong.text()).toContain('nothing was deleted');
  expect(await platform.registry.byId(added.id)).toBeDefined();

  const deleted = await page.submit(`/workspaces/${added.id}/delete`, { confirm: 'client-b' }, '/workspaces');
  expect(deleted.headers.get('location')).toBe('/workspaces?deleted=client-b');
  expect(await platform.registry.byId(added.id)).toBeUndefined();
  expect(await engine.store.list('workflows')).toEqual([]);
  expect(await engine.store.list('credentials')).toEqual([]);

  expect((await page.get('/workspaces/default/delete')).status).toBe(422); // default stays
});

it('refuses a member (a workspace-scoped key) with 403 on every Workspaces page', async () => {
  const token = await page.csrf('/workspaces');
  const asMember = <T>(fn: () => Promise<T>) => runAs(memberOf(env, 'default'), fn);
  expect((await asMember(() => page.get('/workspaces'))).status).toBe(403);
  const refused = await asMember(() => page.post('/workspaces', { _csrf: token, name: 'sneaky' }));
  expect(refused.status).toBe(403);
  expect((await platform.registry.list()).map((w) => w.name)).toEqual(['default']);
});

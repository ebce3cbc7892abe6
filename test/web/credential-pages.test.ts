/**
 * The Credentials page over HTTP: what the workflows need comes first (set or missing), a
 * value is written and never shown again, Test runs the doctor's checks in place, and a
 * delete names the workflows that stop.
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { pageClient, type PageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let page: PageClient;
const SECRET = 'hunter2-very-secret-value';

beforeEach(async () => {
  h = await makeHarness();
  page = pageClient(h.app);
  await saveWorkflow(h.engine.store, {
    ...h.workflow,
    id: 'team-inbox',
    name: 'Team inbox',
    // A mailbox on a port where nothing listens: the check fails, saying why.
    source: {
      type: 'imap',
      host: '127.0.0.1',
      port: 9,
      tls: false,
      user: 'me',
      credential: 'MAIL_PASSWORD',
      mailbox: 'INBOX',
      auth: 'password',
    },
  });
});
afterEach(() => h.cleanup());

it('lists the credentials workflows need first, sets one write-only, tests it with the doctor, deletes it after a confirm', async () => {
  const before = await (await page.get('/credentials')).text();
  const needed = before.split('data-needed')[1]!.split('</ul>')[0]!;
  expect(needed).toContain('data-credential="MAIL_PASSWORD"');
  expect(needed).toMatch(/data-state>missing/);
  expect(needed).toContain('Team inbox');
  expect(before).toContain('href="/credentials" aria-current="page"');

  const set = await page.submit('/credentials', { name: 'MAIL_PASSWORD', value: SECRET }, '/credentials');
  expect(set.status).toBe(303);
  expect((await h.engine.credentials.get('MAIL_PASSWORD'))?.reveal()).toBe(SECRET);
  const after = await (await page.get('/credentials?set=MAIL_PASSWORD')).text();
  expect(after).toContain('Saved MAIL_PASSWORD. Its value is not shown again.');
  expect(after).toMatch(/data-state>set/);
  expect(after).not.toContain(SECRET);
  expect(await (await page.get('/workflows/team-inbox')).text()).not.toContain('cannot run');

  const tested = await page.submit('/credentials/MAIL_PASSWORD/test', {}, '/credentials');
  expect(tested.status).toBe(200);
  const results = (await tested.text()).split('data-test-results')[1]!.split('</ul>')[0]!;
  expect(results).toMatch(/failed<\/span>\s*source \(team-inbox\): imap: /);

  const confirm = await (await page.get('/credentials/MAIL_PASSWORD/delete')).text();
  expect(confirm).toMatch(/Team inbox\s*cannot run without it/);
  expect(await h.engine.credentials.get('MAIL_PASSWORD')).toBeDefined();
  const deleted = await page.submit('/credentials/MAIL_PASSWORD/delete', {}, '/credentials');
  expect(deleted.headers.get('location')).toBe('/credentials?deleted=MAIL_PASSWORD&paused=team-inbox');
  expect(await h.engine.credentials.get('MAIL_PASSWORD')).toBeUndefined();
});

it('refuses a bad name or an empty value with one line (422) and stores nothing', async () => {
  const bad = await page.submit('/credentials', { name: 'mail password', value: SECRET }, '/credentials');
  expect(bad.status).toBe(422);
  const text = await bad.text();
  expect(text).toMatch(/Nothing was saved: &quot;mail password&quot; is not a credential name/);
  expect(text).not.toContain(SECRET);
  const empty = await page.submit('/credentials', { name: 'OTHER_KEY', value: '' }, '/credentials');
  expect(empty.status).toBe(422);
  expect(await h.engine.credentials.list()).toEqual([]);
  expect((await page.post('/credentials', { name: 'X_KEY', value: 'v' })).status).toBe(403); // no CSRF token
  expect(await h.engine.credentials.list()).toEqual([]);
});

it('a set credential nothing uses is listed apart, and says so when tested', async () => {
  await page.submit('/credentials', { name: 'SPARE_KEY', value: 'v1' }, '/credentials');
  const html = await (await page.get('/credentials')).text();
  expect(html.split('data-others')[1]).toContain('data-credential="SPARE_KEY"');
  const tested = await (await page.submit('/credentials/SPARE_KEY/test', {}, '/credentials')).text();
  expect(tested).toMatch(/ok<\/span>\s*SPARE_KEY: set; no workflow or integration uses it yet/);
});

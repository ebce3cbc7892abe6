/**
 * Settings that do what they say: Slack is refused until it has a token and a channel, and
 * the global threshold can be applied to every workflow (the page says when none uses it).
 */
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { Secret } from '../../shared/credentials/secret.ts';
import { readStoredSettings } from '../../shared/settings/settings.ts';
import { getWorkflow, saveWorkflow } from '../../shared/workflows/repository.ts';
import { pageClient, type PageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
let page: PageClient;
beforeEach(async () => {
  h = await makeHarness();
  page = pageClient(h.app);
});
afterEach(() => h.cleanup());

const SLACK = { confidence_threshold: '0.7', notify_channel: 'slack', ui_base_url: '' };

it('refuses Slack without a token and channel in one line (422), and saves it once they are set', async () => {
  const refused = await page.submit('/settings', SLACK, '/settings');
  expect(refused.status).toBe(422);
  const html = await refused.text();
  const errors = [...html.matchAll(/class="field-error"[^>]*>([^<]+)</g)].map((m) => m[1]);
  expect(errors).toEqual([
    'Slack needs a bot token and a channel: set SLACK_BOT_TOKEN and SLACK_CHANNEL on the Credentials page first',
  ]);
  expect(await readStoredSettings(h.engine.store)).toBeNull();

  await h.engine.credentials.set('SLACK_BOT_TOKEN', new Secret('xoxb-test-token'));
  await h.engine.credentials.set('SLACK_CHANNEL', new Secret('C0123'));
  const saved = await page.submit('/settings', SLACK, '/settings');
  expect(saved.status).toBe(303);
  expect((await readStoredSettings(h.engine.store))?.notify_channel).toBe('slack');
});

it('says when every workflow overrides the threshold, and "apply to every workflow" clears their own', async () => {
  await saveWorkflow(h.engine.store, { ...h.workflow, confidence_threshold: 0.9 });
  await saveWorkflow(h.engine.store, {
    ...h.workflow,
    id: 'other',
    name: 'Other',
    confidence_threshold: 0.6,
  });
  const before = await (await page.get('/settings')).text();
  expect(before).toContain('data-every-overrides');
  expect(before).toMatch(/Every workflow sets its own threshold, so this one is used by none of them/);

  const kept = await page.submit(
    '/settings',
    { confidence_threshold: '0.75', notify_channel: 'console', ui_base_url: '' },
    '/settings',
  );
  expect(kept.headers.get('location')).toBe('/settings?saved=1');
  expect((await getWorkflow(h.engine.store, 'other')).confidence_threshold).toBe(0.6);

  const applied = await page.submit(
    '/settings',
    { confidence_threshold: '0.75', notify_channel: 'console', ui_base_url: '', apply_to_workflows: 'on' },
    '/settings',
  );
  expect(applied.headers.get('location')).toBe('/settings?saved=1&applied=2');
  expect((await getWorkflow(h.engine.store, 'other')).confidence_threshold).toBeUndefined();
  expect((await getWorkflow(h.engine.store, 'inbox-triage')).confidence_threshold).toBeUndefined();
  const after = await (await page.get('/settings?saved=1&applied=2')).text();
  expect(after).toContain('2 workflows now use this threshold from the next run.');
  expect(after).not.toContain('data-every-overrides');
});

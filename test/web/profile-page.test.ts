import { afterEach, expect, it } from '@jest/globals';
import { readProfile } from '../../shared/profile/profile.ts';
import { pageClient } from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

it('the Settings page edits the profile; a bad time zone is refused, named, and nothing is saved', async () => {
  h = await makeHarness();
  const browser = pageClient(h.app);
  const page = await (await browser.get('/settings')).text();
  expect(page).toContain('<h2 id="profile">Profile</h2>');
  const csrf = /action="\/settings\/profile">\s*<input type="hidden" name="_csrf" value="([^"]+)"/.exec(
    page,
  )?.[1];
  expect(csrf).toBeDefined();

  const bad = await browser.post('/settings/profile', {
    _csrf: csrf!,
    name: 'Ana',
    time_zone: 'Atlantis/Lost',
    notify_channel: '',
    quiet_start: '22:00',
    quiet_end: '',
  });
  expect(bad.status).toBe(422);
  const refused = await bad.text();
  expect(refused).toContain('must be an IANA time zone');
  expect(refused).toContain('must be a time of day as HH:MM');
  expect((await readProfile(h.engine.store)).name).toBeNull();

  const saved = await browser.post('/settings/profile', {
    _csrf: csrf!,
    name: 'Ana',
    time_zone: 'Europe/Paris',
    notify_channel: 'slack',
    quiet_start: '22:00',
    quiet_end: '07:00',
  });
  expect(saved.status).toBe(303);
  expect(await readProfile(h.engine.store)).toMatchObject({
    name: 'Ana',
    time_zone: 'Europe/Paris',
    notify_channel: 'slack',
    quiet_hours: { start: '22:00', end: '07:00' },
  });
  const shown = await (await browser.get('/settings?profile=1')).text();
  expect(shown).toContain('value="Europe/Paris"');
  expect(shown).toContain('Saved your profile.');
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { workflowYaml } from '../support/engine-fixture.ts';

it('profile, skills and agents from the terminal: JSON shapes, one-line refusals that change nothing', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-platform-cli-'));
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };

  expect(await cliJson(['profile'], env)).toEqual({
    name: null,
    time_zone: 'UTC',
    notify_channel: null,
    quiet_hours: null,
    updated_at: null,
  });
  const badHours = await runCli(['profile', 'set', '--quiet-hours', '22-7'], env);
  expect(badHours.code).toBe(1);
  expect(badHours.stderr).toBe(
    'handoff: quiet hours "22-7": must be HH:MM-HH:MM in your time zone (24-hour, e.g. 22:00-07:00), or off\n',
  );
  const badZone = await runCli(['profile', 'set', '--time-zone', 'Mars/Olympus'], env);
  expect(badZone.code).toBe(1);
  expect(badZone.stderr).toMatch(/^handoff: time_zone: must be an IANA time zone[^\n]*\n$/);
  expect(
    await cliJson(
      [
        'profile',
        'set',
        '--name',
        'Ana',
        '--time-zone',
        'Asia/Tokyo',
        '--notify',
        'console',
        '--quiet-hours',
        '21:30-06:45',
      ],
      env,
    ),
  ).toMatchObject({
    name: 'Ana',
    time_zone: 'Asia/Tokyo',
    notify_channel: 'console',
    quiet_hours: { start: '21:30', end: '06:45' },
  });

  await fs.writeFile(path.join(dir, 'tone.md'), 'Short, warm sentences.\n');
  expect(await cliJson(['skills', 'add', 'tone-of-voice', '--file', path.join(dir, 'tone.md')], env)).toEqual(
    {
      name: 'tone-of-voice',
      version: 1,
      created: true,
    },
  );
  const missing = await runCli(['skills', 'add', 'tone-of-voice', '--file', path.join(dir, 'nope.md')], env);
  expect(missing.stderr).toBe(`handoff: ${path.join(dir, 'nope.md')}: file not found\n`);
  const badName = await runCli(['skills', 'add', 'Tone Of Voice', '--file', path.join(dir, 'tone.md')], env);
  expect(badName.code).toBe(1);
  expect(badName.stderr).toMatch(/^handoff: skill name "Tone Of Voice": must be 1-64 lowercase letters/);

  await fs.writeFile(
    path.join(dir, 'billing.yaml'),
    'description: bills\ninstructions: Archive receipts.\nmodel: huge\n',
  );
  const badAgent = await runCli(['agents', 'add', 'billing', '--file', path.join(dir, 'billing.yaml')], env);
  expect(badAgent.code).toBe(1);
  expect(badAgent.stderr).toBe('handoff: agent billing: model: must be "primary" or "fallback"\n');
  expect(await cliJson<unknown[]>(['agents'], env)).toEqual([]);

  await fs.writeFile(
    path.join(dir, 'inbox.yaml'),
    workflowYaml(path.join(dir, 'Maildir'), 'skills: [tone-of-voice]\n'),
  );
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
  expect(await cliJson(['skills'], env)).toEqual([
    { name: 'tone-of-voice', version: 1, created_at: expect.any(String), used_by: ['workflow inbox'] },
  ]);
  const refused = await runCli(['skills', 'delete', 'tone-of-voice'], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toBe(
    'handoff: skill tone-of-voice is used by workflow inbox: remove it from it first\n',
  );
  expect(await cliJson(['skills', 'show', 'tone-of-voice'], env)).toMatchObject({
    version: 1,
    body: 'Short, warm sentences.',
  });

  await fs.writeFile(
    path.join(dir, 'typo.yaml'),
    workflowYaml(path.join(dir, 'Maildir'), 'skills: [tone-of-voce]\n').replace('id: inbox', 'id: typo'),
  );
  const unknown = await runCli(['workflows', 'add', path.join(dir, 'typo.yaml')], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('skills.0: no skill "tone-of-voce"');
}, 60_000);

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { readProfile } from '../../shared/profile/profile.ts';
import { skills } from '../../shared/skills/skills.ts';
import { createApp } from '../../shared/web/app.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(async () => {
  await h.cleanup();
});

describe('the platform API', () => {
  it('GET and PUT /api/profile; a bad field is a 422 naming it and changes nothing', async () => {
    const put = await h.app.request('/api/profile', {
      method: 'PUT',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({
        name: 'Ana',
        time_zone: 'Europe/Paris',
        quiet_hours: { start: '22:00', end: '07:00' },
      }),
    });
    expect(put.status).toBe(200);
    const got = await h.app.request('/api/profile', { headers: h.auth() });
    expect(await got.json()).toMatchObject({
      name: 'Ana',
      time_zone: 'Europe/Paris',
      quiet_hours: { start: '22:00', end: '07:00' },
    });
    const bad = await h.app.request('/api/profile', {
      method: 'PUT',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ time_zone: 'Nowhere/Land' }),
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^time_zone: must be an IANA time zone/);
    expect((await readProfile(h.engine.store)).time_zone).toBe('Europe/Paris');
    expect((await h.app.request('/api/profile')).status).toBe(401);
  });

  it('PUT /api/skills/:name makes versions; GET shows one; DELETE removes them', async () => {
    const put = (body: string) =>
      h.app.request('/api/skills/tone-of-voice', {
        method: 'PUT',
        headers: h.auth({ 'Content-Type': 'text/markdown' }),
        body,
      });
    expect((await put('Be brief.')).status).toBe(201);
    expect(await (await put('Be brief and warm.')).json()).toEqual({
      name: 'tone-of-voice',
      version: 2,
      created: true,
    });
    expect((await put('Be brief and warm.')).status).toBe(200);
    const one = await h.app.request('/api/skills/tone-of-voice?version=1', { headers: h.auth() });
    expect(await one.json()).toMatchObject({ version: 1, body: 'Be brief.', versions: [1, 2] });
    expect((await h.app.request('/api/skills/nope', { headers: h.auth() })).status).toBe(404);
    expect(
      (await h.app.request('/api/skills/tone-of-voice', { method: 'DELETE', headers: h.auth() })).status,
    ).toBe(204);
    expect(await skills.listLatest(h.engine.store)).toEqual([]);
  });

  it('exports the workspace as YAML and applies a file: dry run first, problems as a 422 list', async () => {
    const exported = await h.app.request('/api/workspace/export', { headers: h.auth() });
    expect(exported.headers.get('Content-Type')).toMatch(/^application\/yaml/);
    const text = (await exported.text()).replace(
      'skills: []',
      'skills:\n  - name: tone-of-voice\n    body: Be brief.',
    );
    const dry = await h.app.request('/api/workspace/apply?dry_run=1', {
      method: 'POST',
      headers: h.auth(),
      body: text,
    });
    expect(await dry.json()).toEqual({
      applied: false,
      changes: [{ kind: 'skill', name: 'tone-of-voice', change: 'add' }],
    });
    expect(await skills.listLatest(h.engine.store)).toEqual([]);
    const applied = await h.app.request('/api/workspace/apply', {
      method: 'POST',
      headers: h.auth(),
      body: text,
    });
    expect(await applied.json()).toMatchObject({ applied: true });
    expect((await skills.listLatest(h.engine.store)).map((s) => s.name)).toEqual(['tone-of-voice']);
    const bad = await h.app.request('/api/workspace/apply', {
      method: 'POST',
      headers: h.auth(),
      body: 'version: 2\nskills: [{ name: a, body: x }, { name: a, body: y }]\n',
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { problems: string[] }).problems).toEqual([
      'workspace.yml: version: must be 1',
      'workspace.yml: skills.1.name: duplicate name "a" (also skills.0)',
    ]);
  });

  it('on a Lambda, refuses a workspace whose workflow needs local folders, and writes nothing', async () => {
    const lambda = createApp({ engine: h.engine, env: h.env, runner: h.launcher, inLambda: true });
    const text = await (await h.app.request('/api/workspace/export', { headers: h.auth() })).text();
    await h.engine.store.delete('workflows', h.workflow.id); // the file brings it back
    const refused = await lambda.request('/api/workspace/apply', {
      method: 'POST',
      headers: h.auth(),
      body: text,
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { problems: string[] }).problems).toEqual([
      expect.stringMatching(
        /^workspace\.yml: workflows\.0\.source\.type: a Lambda function has no local folders/,
      ),
    ]);
    expect(await h.engine.store.list('workflows')).toEqual([]);
  });

  it('a changed time zone announces every scheduled workflow again (AWS: its schedule is updated)', async () => {
    const announced: string[] = [];
    const app = createApp({
      engine: h.engine,
      env: h.env,
      runner: h.launcher,
      onWorkflowChange: async (id, change) => void announced.push(`${id} ${change}`),
    });
    await saveWorkflow(h.engine.store, {
      ...h.workflow,
      id: 'morning',
      trigger: { schedule: 'cron(0 8 * * ? *)' },
    });
    const put = (body: object) =>
      app.request('/api/profile', {
        method: 'PUT',
        headers: h.auth({ 'Content-Type': 'application/json' }),
        body: JSON.stringify(body),
      });
    expect((await put({ name: 'Ana' })).status).toBe(200);
    expect(announced).toEqual([]); // nothing a schedule reads changed
    expect((await put({ time_zone: 'Asia/Tokyo' })).status).toBe(200);
    expect(announced).toEqual(['morning saved']); // the manual workflow has no schedule
  });

  it("keeps each route's own body limit though its handler loads on first use (profile 16 KiB, skills 64 KiB)", async () => {
    const send = (path: string, bytes: number) =>
      h.app.request(path, {
        method: 'PUT',
        headers: h.auth({ 'Content-Type': 'application/json' }),
        body: JSON.stringify({ name: 'x'.repeat(bytes) }),
      });
    const profile = await send('/api/profile', 17 * 1024);
    expect(profile.status).toBe(413);
    expect(await profile.json()).toEqual({ error: 'request body larger than 16 KiB' });
    const skill = await send('/api/skills/triage', 65 * 1024);
    expect(skill.status).toBe(413);
    expect(await skill.json()).toEqual({ error: 'request body larger than 64 KiB' });
    expect((await h.app.request('/api/profile', { headers: h.auth() })).status).toBe(200);
  });
});

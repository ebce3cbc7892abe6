/**
 * Schedules: next firings in the profile's time zone (daylight-saving changes included),
 * pausing without editing the workflow, the local scheduler leaving a paused one alone,
 * and the API, the page and the CLI over the same record.
 */
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Env } from '../../shared/config/env.ts';
import { NotFoundError } from '../../shared/errors/index.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import type { Run } from '../../shared/records/runs.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { listRuns } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { listSchedules, nextFirings, setPaused } from '../../shared/schedules/schedules.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { createApp } from '../../shared/web/app.ts';
import type { RunLauncher } from '../../shared/web/run-launcher.ts';
import { startScheduler, type Scheduler } from '../../shared/web/scheduler.ts';
import { runCli } from '../support/cli.ts';
import { addDemoWorkflow, API_KEY, makeEngine, waitFor } from '../web/support.ts';

const WEEKDAYS_8AM = 'cron(0 8 ? * MON-FRI *)';
const DAILY_8AM = 'cron(0 8 * * ? *)';

describe('next firings', () => {
  it('are read in the time zone, across the autumn daylight-saving change (Europe/Paris)', () => {
    // Summer time ends on Sunday 25 October 2026 at 03:00 CEST: 08:00 moves from 06:00Z to 07:00Z.
    const next = nextFirings(DAILY_8AM, 'Europe/Paris', new Date('2026-10-23T12:00:00Z'));
    expect(next).toEqual([
      { at: '2026-10-24T06:00:00.000Z', local: '2026-10-24 08:00 CEST' },
      { at: '2026-10-25T07:00:00.000Z', local: '2026-10-25 08:00 CET' },
      { at: '2026-10-26T07:00:00.000Z', local: '2026-10-26 08:00 CET' },
    ]);
  });

  it('are read in the time zone across the spring change, weekdays only (America/New_York)', () => {
    // Daylight time starts on Sunday 8 March 2026: 08:00 moves from 13:00Z to 12:00Z.
    const next = nextFirings(WEEKDAYS_8AM, 'America/New_York', new Date('2026-03-05T14:00:00Z'));
    expect(next.map((f) => f.at)).toEqual([
      '2026-03-06T13:00:00.000Z', // Friday, EST
      '2026-03-09T12:00:00.000Z', // Monday, EDT (the weekend is skipped)
      '2026-03-10T12:00:00.000Z',
    ]);
    expect(next[0]!.local).toBe('2026-03-06 08:00 EST');
    expect(next[1]!.local).toBe('2026-03-09 08:00 EDT');
  });

  it('in UTC, the same expression fires at 08:00Z', () => {
    expect(nextFirings(DAILY_8AM, 'UTC', new Date('2026-10-23T12:00:00Z'), 2).map((f) => f.at)).toEqual([
      '2026-10-24T08:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
    ]);
  });
});

let dir: string;
let env: Env;
let engine: EngineDeps;
let scheduler: Scheduler | undefined;

beforeEach(async () => {
  ({ dir, env, engine } = await makeEngine({ HANDOFF_API_KEY: API_KEY }));
  await addDemoWorkflow(engine, dir, {
    id: 'digest',
    name: 'Morning digest',
    trigger: { schedule: DAILY_8AM },
  });
  await addDemoWorkflow(engine, dir, { id: 'watch', name: 'Watch', trigger: { schedule: WEEKDAYS_8AM } });
  await addDemoWorkflow(engine, dir); // inbox-triage: manual, never listed
});
afterEach(async () => {
  scheduler?.stop();
  await scheduler?.idle();
  scheduler = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

describe('pausing', () => {
  it("lists every scheduled workflow in the profile's time zone; a paused one shows no firings and the workflow is unchanged", async () => {
    await saveProfile(engine.store, { time_zone: 'Europe/Paris' });
    const before = await getWorkflow(engine.store, 'watch');
    const now = new Date('2026-10-23T12:00:00Z');
    const paused = await setPaused(engine.store, 'watch', true, now);
    expect(paused).toMatchObject({
      workflow_id: 'watch',
      paused: true,
      next: [],
      changed_at: now.toISOString(),
    });
    expect(await getWorkflow(engine.store, 'watch')).toEqual(before);

    const list = await listSchedules(engine.store, now);
    expect(list.map((s) => [s.workflow_id, s.paused, s.time_zone])).toEqual([
      ['digest', false, 'Europe/Paris'],
      ['watch', true, 'Europe/Paris'],
    ]);
    expect(list[0]!.next.map((f) => f.local)).toEqual([
      '2026-10-24 08:00 CEST',
      '2026-10-25 08:00 CET',
      '2026-10-26 08:00 CET',
    ]);
    // Pausing twice changes nothing (not even when it was paused); resuming brings the firings back.
    expect((await setPaused(engine.store, 'watch', true, new Date('2026-10-24T00:00:00Z'))).changed_at).toBe(
      now.toISOString(),
    );
    const resumed = await setPaused(engine.store, 'watch', false, now);
    expect(resumed.paused).toBe(false);
    expect(resumed.next.map((f) => f.at)).toEqual([
      '2026-10-26T07:00:00.000Z', // Monday: the weekend is skipped
      '2026-10-27T07:00:00.000Z',
      '2026-10-28T07:00:00.000Z',
    ]);
  });

  it('refuses an unknown workflow and a workflow without a schedule, and writes nothing', async () => {
    await expect(setPaused(engine.store, 'nope', true)).rejects.toThrow(NotFoundError);
    await expect(setPaused(engine.store, 'nope', true)).rejects.toThrow(/^no workflow "nope"/);
    await expect(setPaused(engine.store, 'inbox-triage', true)).rejects.toThrow(
      'workflow "inbox-triage" has no schedule (trigger.schedule), so there is nothing to pause',
    );
    expect(await engine.store.list('schedules')).toEqual([]);
  });

  it('a paused schedule does not fire in the local scheduler; resumed, it fires again', async () => {
    const launched: Run[] = [];
    const launcher: RunLauncher = { launch: (run) => void launched.push(run), idle: async () => undefined };
    await setPaused(engine.store, 'watch', true);
    scheduler = startScheduler(engine, launcher, { cronOf: () => '* * * * * *', log: () => undefined });
    // The active one fires every second; by its second firing the paused one has had two chances.
    await waitFor(
      async () => (launched.filter((r) => r.workflow_id === 'digest').length >= 1 ? true : undefined),
      5_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await scheduler.idle();
    expect((await listRuns(engine.store)).filter((r) => r.workflow_id === 'watch')).toEqual([]);
    expect(launched.some((r) => r.workflow_id === 'watch')).toBe(false);

    await setPaused(engine.store, 'watch', false); // no restart: the next firing reads the record
    const [run] = await waitFor(async () => {
      const runs = launched.filter((r) => r.workflow_id === 'watch');
      return runs.length > 0 ? runs : undefined;
    }, 5_000);
    expect(run!.trigger).toEqual({ kind: 'schedule', detail: WEEKDAYS_8AM });
  });
});

describe('over HTTP', () => {
  const changes: [string, string][] = [];
  const app = () =>
    createApp({
      engine,
      env,
      runner: { launch: () => undefined, idle: async () => undefined },
      onWorkflowChange: async (id, change) => void changes.push([id, change]),
    });
  const auth = { Authorization: `Bearer ${API_KEY}` };
  beforeEach(() => void changes.splice(0));

  it('GET /api/schedules lists them; POST pause and resume change one and announce it; bad input is a 404 with one line', async () => {
    const web = app();
    const list = await web.request('/api/schedules', { headers: auth });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { workflow_id: string; time_zone: string; next: unknown[] }[];
    expect(body.map((s) => [s.workflow_id, s.time_zone, s.next.length])).toEqual([
      ['digest', 'UTC', 3],
      ['watch', 'UTC', 3],
    ]);

    const paused = await web.request('/api/schedules/watch/pause', { method: 'POST', headers: auth });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ workflow_id: 'watch', paused: true, next: [] });
    expect(changes).toEqual([['watch', 'saved']]); // on AWS: the schedule sync sets it DISABLED
    const resumed = await web.request('/api/schedules/watch/resume', { method: 'POST', headers: auth });
    expect(await resumed.json()).toMatchObject({ workflow_id: 'watch', paused: false });

    for (const [url, message] of [
      ['/api/schedules/nope/pause', /^no workflow "nope"/],
      ['/api/schedules/inbox-triage/pause', /^workflow "inbox-triage" has no schedule/],
    ] as const) {
      const refused = await web.request(url, { method: 'POST', headers: auth });
      expect(refused.status).toBe(404);
      const { error } = (await refused.json()) as { error: string };
      expect(error).toMatch(message);
      expect(error).not.toContain('\n');
    }
    const anonymous = await web.request('/api/schedules/watch/pause', { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(changes).toEqual([
      ['watch', 'saved'],
      ['watch', 'saved'],
    ]);
    expect(await listSchedules(engine.store)).toEqual(
      expect.arrayContaining([expect.objectContaining({ workflow_id: 'watch', paused: false })]),
    );
  });

  it('the Schedules page pauses with a CSRF-protected form; without the token nothing changes', async () => {
    const web = app();
    const page = await web.request('/schedules');
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const html = await page.text();
    expect(html).toContain('action="/schedules/watch/pause"');
    expect(html).toMatch(/href="\/schedules" aria-current="page"\s*>Schedules</);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    const post = (token: string) =>
      web.request('/schedules/watch/pause', {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token }).toString(),
      });

    expect((await post('forged')).status).toBe(403);
    expect(await engine.store.list('schedules')).toEqual([]);
    const done = await post(csrf);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/schedules?paused=watch');
    const after = await (
      await web.request('/schedules?paused=watch', { headers: { Cookie: cookie } })
    ).text();
    expect(after).toContain('Paused the schedule of watch.');
    expect(after).toContain('action="/schedules/watch/resume"');
    expect(changes).toEqual([['watch', 'saved']]);
  });

  it('the Schedules page reads each schedule in words with the last result, and says which cannot run', async () => {
    await startRun(engine, 'digest', { kind: 'manual', detail: null });
    const watch = await getWorkflow(engine.store, 'watch');
    await fs.rm((watch.source as { path: string }).path, { recursive: true, force: true }); // its mail folder is gone
    const html = await (await app().request('/schedules')).text();
    const row = (id: string) => html.split(`data-schedule="${id}"`)[1]!.split('</tr>')[0]!;
    expect(row('digest')).toMatch(/data-schedule-words[^>]*>\s*every day at 08:00 \(UTC\)/);
    expect(row('watch')).toMatch(/data-schedule-words[^>]*>\s*weekdays at 08:00 \(UTC\)/);
    expect(row('digest')).not.toContain('<code>cron(');
    expect(row('digest')).toMatch(/status-waiting[\s\S]*waiting for you: \d+ acted/);
    expect(row('watch')).toContain('no run yet');
    expect(row('watch')).toMatch(/cannot run: the mail folder .+ does not exist/);
    expect(row('digest')).toMatch(/data-schedule-state>\s*active/);
  });
});

it('handoff schedules [--json], pause and resume from the terminal; bad input is one line and exit 1', async () => {
  const cli = (args: string[]) => runCli(args, { HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR });
  const paused = await cli(['schedules', 'pause', 'digest', '--json']);
  expect(paused.code).toBe(0);
  expect(JSON.parse(paused.stdout)).toMatchObject({ workflow_id: 'digest', paused: true, next: [] });
  const listed = await cli(['schedules', '--json']);
  expect(
    (JSON.parse(listed.stdout) as { workflow_id: string; paused: boolean }[]).map((s) => [
      s.workflow_id,
      s.paused,
    ]),
  ).toEqual([
    ['digest', true],
    ['watch', false],
  ]);
  const refused = await cli(['schedules', 'resume', 'inbox-triage']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toBe(
    'handoff: workflow "inbox-triage" has no schedule (trigger.schedule), so there is nothing to resume\n',
  );
  const table = await cli(['schedules']);
  expect(table.stdout).toMatch(/^digest\s+cron\(0 8 \* \* \? \*\)\s+paused/m);
  expect(table.stdout).toMatch(/^watch\s+.*active\s+\d{4}-\d{2}-\d{2} 08:00 UTC/m);
});

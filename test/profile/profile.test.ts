import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { loadEnv } from '../../shared/config/env.ts';
import { WORKFLOW_DETAIL_TYPE } from '../../shared/aws/lambda-events.ts';
import { syncWorkflowSchedule } from '../../shared/aws/schedule-sync.ts';
import type { Notice } from '../../shared/notify/notifier.ts';
import { quietUntil, readProfile, saveProfile } from '../../shared/profile/profile.ts';
import { InterruptSchema } from '../../shared/records/runs.ts';
import { listDecisions } from '../../shared/runs/decision-repository.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { expireDue } from '../../shared/runs/housekeeping.ts';
import { sweep } from '../../shared/runs/sweep.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { getRecord } from '../../shared/store/records.ts';
import { createRunLauncher } from '../../shared/web/run-launcher.ts';
import { startScheduler } from '../../shared/web/scheduler.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';

let dir: string;
let engine: EngineDeps;
beforeEach(async () => {
  ({ dir, engine } = await makeEngine());
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the profile time zone', () => {
  it('the local scheduler reads a schedule in the profile time zone, and follows a change', async () => {
    await saveProfile(engine.store, { time_zone: 'Asia/Tokyo' }); // UTC+9, no daylight saving
    await addDemoWorkflow(engine, dir, { id: 'morning', trigger: { schedule: 'cron(0 8 * * ? *)' } });
    const scheduler = startScheduler(engine, createRunLauncher(engine), {
      periodMs: 3_600_000,
      log: () => {},
    });
    try {
      await scheduler.idle();
      const tokyo = scheduler.next('morning');
      expect(tokyo?.timeZone).toBe('Asia/Tokyo');
      expect(tokyo?.at?.getUTCHours()).toBe(23); // 08:00 in Tokyo
      await saveProfile(engine.store, { time_zone: 'UTC' });
      await scheduler.refresh();
      expect(scheduler.next('morning')?.at?.getUTCHours()).toBe(8);
    } finally {
      scheduler.stop();
      await scheduler.idle();
    }
  });

  it('EventBridge Scheduler gets the profile time zone as ScheduleExpressionTimezone', async () => {
    const scheduler = mockClient(SchedulerClient);
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/g/morning' });
    await saveProfile(engine.store, { time_zone: 'Europe/Paris' });
    await addDemoWorkflow(engine, dir, { id: 'morning', trigger: { schedule: 'cron(0 8 * * ? *)' } });
    const opts = {
      groupName: 'g',
      targetArn: 'arn:aws:lambda:::function:trigger',
      roleArn: 'arn:aws:iam:::role/s',
    };
    const event = {
      'detail-type': WORKFLOW_DETAIL_TYPE,
      detail: { workflow_id: 'morning', change: 'saved' },
    };
    expect(
      await syncWorkflowSchedule(
        () => engine.store,
        new SchedulerClient({ region: 'us-east-1' }),
        opts,
        event,
      ),
    ).toEqual({
      workflow_id: 'morning',
      schedule: 'created',
    });
    expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, {
      Name: 'morning',
      ScheduleExpression: 'cron(0 8 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Paris',
    });
    scheduler.restore();
  });

  it('refuses a time zone that does not exist, naming the field, and keeps the profile', async () => {
    await expect(saveProfile(engine.store, { time_zone: 'Mars/Olympus' })).rejects.toThrow(
      /^time_zone: must be an IANA time zone/,
    );
    expect((await readProfile(engine.store)).time_zone).toBe('UTC');
  });
});

describe('quiet hours', () => {
  const hhmm = (d: Date) => d.toISOString().slice(11, 16);

  it('knows when a window that crosses midnight ends, in the profile time zone', () => {
    const profile = { quiet_hours: { start: '22:00', end: '07:00' }, time_zone: 'Europe/Paris' };
    // 23:30 in Paris (winter, UTC+1): quiet until 07:00 Paris = 06:00 UTC the next day.
    expect(quietUntil(profile, new Date('2026-12-01T22:30:00Z'))?.toISOString()).toBe(
      '2026-12-02T06:00:00.000Z',
    );
    expect(quietUntil(profile, new Date('2026-12-01T12:00:00Z'))).toBeNull();
    // The night the clocks go forward (02:00 → 03:00 on 29 March): still 07:00 on the wall.
    const spring = { quiet_hours: { start: '01:00', end: '07:00' }, time_zone: 'Europe/Paris' };
    expect(quietUntil(spring, new Date('2026-03-29T00:30:00Z'))?.toISOString()).toBe(
      '2026-03-29T05:00:00.000Z',
    );
  });

  it('holds the notice of questions raised in quiet hours until they end; the questions stay pending', async () => {
    const notices: Notice[] = [];
    const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') });
    engine = engineFromEnv(env, { notifier: { notify: async (n) => void notices.push(n) } });
    const now = new Date();
    const end = new Date(now.getTime() + 2 * 3_600_000);
    await saveProfile(engine.store, {
      quiet_hours: { start: hhmm(new Date(now.getTime() - 3_600_000)), end: hhmm(end) },
    });
    await addDemoWorkflow(engine, dir);
    const run = await startRun(engine, 'inbox-triage', { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    expect(notices.filter((n) => n.kind === 'asked')).toEqual([]);
    const interrupt = await getRecord(engine.store, 'interrupts', InterruptSchema, run.interrupt_id!);
    const due = new Date(interrupt!.notice_due_at!);
    expect(hhmm(due)).toBe(hhmm(end));
    const asked = (await listDecisions(engine.store)).filter((d) => d.run_id === run.id);
    // The whole answer time counts from the notice, not from the quiet hours.
    for (const d of asked) expect(new Date(d.expires_at).getTime()).toBeGreaterThan(due.getTime());

    await expireDue(engine, new Date(due.getTime() - 60_000)); // still quiet
    expect(notices.filter((n) => n.kind === 'asked')).toEqual([]);
    await sweep(engine, new Date(due.getTime() + 60_000)); // the window is open (AWS: the sweeper)
    await expireDue(engine, new Date(due.getTime() + 120_000)); // told once only
    expect(notices.filter((n) => n.kind === 'asked')).toEqual([
      expect.objectContaining({ kind: 'asked', runId: run.id, count: asked.length }),
    ]);
    const after = (await listDecisions(engine.store)).filter((d) => d.run_id === run.id);
    expect(after.map((d) => d.status)).toEqual(asked.map(() => 'pending')); // never answered by quiet hours
  });
});

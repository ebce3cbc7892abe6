/**
 * Changes made with the CLI against the deployed table announce nothing on the bus: the
 * sweeper, run from the template with only what the template gives it, brings each
 * EventBridge schedule in step at its next run (a credential deleted pauses it, set again
 * resumes it; a workflow added gets its schedule, removed loses it), and a quiet sweep sends
 * Scheduler nothing.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { DOVECOT_PASSWORD } from '../../support/dovecot.ts';
import { expectDeployable, imapWorkflowYaml, save, SCHEDULE, type Variant } from './expect.ts';
import type { Harness } from './harness.ts';

/** Runs the sweeper six minutes on; returns what it sent Scheduler, as `action name`. */
async function sweep(h: Harness): Promise<string[]> {
  const from = h.gateway.schedulerCalls.length;
  expect(await h.cloud.tick('sweeper', new Date(Date.now() + 6 * 60_000))).toMatchObject({ ok: true });
  return h.gateway.schedulerCalls.slice(from).map((c) => {
    expect(c.by).toContain('sweeper');
    return `${c.action} ${c.name}`;
  });
}

export function cliScheduleJourneys(v: Variant): void {
  it('a credential deleted, then set again, with the CLI pauses, then resumes, the EventBridge schedule at the next sweep', async () => {
    const h = v.h();
    const table = { USE_DYNAMODB: 'true', HANDOFF_TABLE: h.outputs.TableName! };
    const withKey = { ...table, HANDOFF_KMS_KEY_ID: h.outputs.CredentialsKeyArn! };
    await h.cli(['credentials', 'set', 'CLI_PASSWORD'], withKey, DOVECOT_PASSWORD);
    await save(h, 'cli-box', imapWorkflowYaml(v.dovecot(), 'cli-box', 'CLI_PASSWORD'));
    const key = `${h.scheduleGroup}/cli-box`;
    expect(h.gateway.schedules.get(key)).toMatchObject({ expression: SCHEDULE, state: 'ENABLED' });
    await sweep(h); // whatever earlier journeys left behind
    expect(await sweep(h)).toEqual([]);

    const deleted = await h.cli(['credentials', 'delete', 'CLI_PASSWORD'], withKey);
    expect(deleted.stdout).toContain('Paused cli-box ("cli-box") until it is set again.');
    expect(h.gateway.schedules.get(key)).toMatchObject({ state: 'ENABLED' }); // nothing announced
    expect(await sweep(h)).toEqual(['UpdateSchedule cli-box']);
    expect(h.gateway.schedules.get(key)).toMatchObject({ expression: SCHEDULE, state: 'DISABLED' });
    expect(await sweep(h)).toEqual([]);

    const set = await h.cli(['credentials', 'set', 'CLI_PASSWORD'], withKey, DOVECOT_PASSWORD);
    expect(set.stdout).toContain('Resumed cli-box ("cli-box")');
    expect(h.gateway.schedules.get(key)).toMatchObject({ state: 'DISABLED' });
    expect(await sweep(h)).toEqual(['UpdateSchedule cli-box']);
    expect(h.gateway.schedules.get(key)).toMatchObject({ expression: SCHEDULE, state: 'ENABLED' });
    expect(await sweep(h)).toEqual([]);
    expectDeployable(h);
  });

  it('a workflow added with a schedule with the CLI gets its EventBridge schedule at the next sweep; removed, loses it', async () => {
    const h = v.h();
    const table = { USE_DYNAMODB: 'true', HANDOFF_TABLE: h.outputs.TableName! };
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-cli-schedule-'));
    try {
      const file = path.join(dir, 'cli-hooks.yaml');
      const schedule = '{ schedule: "rate(1 hour)" }';
      const yaml = imapWorkflowYaml(v.dovecot(), 'cli-hooks', 'MAIL_PASSWORD', schedule);
      await fs.writeFile(file, yaml);
      await h.cli(['workflows', 'add', file], table);
      const key = `${h.scheduleGroup}/cli-hooks`;
      expect(h.gateway.schedules.has(key)).toBe(false);
      expect(await sweep(h)).toEqual(['CreateSchedule cli-hooks']);
      expect(h.gateway.schedules.get(key)).toMatchObject({ expression: 'rate(1 hour)', state: 'ENABLED' });
      expect(await sweep(h)).toEqual([]);

      await h.cli(['workflows', 'remove', 'cli-hooks'], table);
      expect(await sweep(h)).toEqual(['DeleteSchedule cli-hooks']);
      expect(h.gateway.schedules.has(key)).toBe(false);
      expect(await sweep(h)).toEqual([]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    expectDeployable(h);
  });
}

/**
 * Changes that announce nothing (the CLI against the deployed table: `handoff credentials set`
 * resuming a workflow, `credentials delete` pausing it, `workflows add` / `remove`, `profile set
 * --time-zone`) reach EventBridge Scheduler at the sweeper's next run: it syncs each schedule
 * whose request differs from the one last synced, and sends nothing when none does. Scheduler is
 * mocked at the command level (a stand-in that remembers its schedules) and its requests
 * asserted; DynamoDB is dynalite, read through a spy that fails on a full read of a keyed collection.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { sweepRuns } from '../../shared/aws/lambda-handlers.ts';
import { reconcileSchedules } from '../../shared/aws/schedule-reconcile.ts';
import { syncWorkflowSchedule } from '../../shared/aws/schedule-sync.ts';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import { pauseWhenDeleted, resumeWhenSet } from '../../shared/schedules/resume-when-set.ts';
import { getScheduleState, pauseUntilSet } from '../../shared/schedules/schedules.ts';
import { syncedSchedules } from '../../shared/schedules/synced.ts';
import type { DynamoDbStore } from '../../shared/store/dynamodb-store.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { deleteWorkflow, getWorkflow, saveWorkflow } from '../../shared/workflows/repository.ts';
import { platformOver, type Platform } from '../../shared/workspaces/platform.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';
import { MemoryStore } from '../../bench/memory-store.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { spyOnStore, type StoreSpy } from '../support/store-spy.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';
import { ARNS, deliver, GROUP } from './support.ts';

const scheduler = mockClient(SchedulerClient);
const OPTS = { groupName: GROUP, targetArn: ARNS.trigger, roleArn: ARNS.schedulerRole };
const SCHEDULE = 'cron(0 8 ? * MON-FRI *)';
const newStore = dynaliteTables('handoff-reconcile');

/** Scheduler's schedules, as the stand-in holds them. */
const held = new Map<string, CreateScheduleCommandInput>();
/** Schedules whose next create Scheduler refuses (throttled). */
const refuseOnce = new Set<string>();

let dir: string;
let store: DynamoDbStore;
let engine: EngineDeps;
let credentials: Credentials;
let spy: StoreSpy;
let platform: Platform;

/** One sweep as the sweeper function runs it; the reads it makes go through the spy. */
const sweepOnce = () =>
  sweepRuns(platform, (workspaceStore, workspace) => {
    expect(workspaceStore).toBe(store);
    return reconcileSchedules(spy.store, new SchedulerClient({ region: 'us-east-1' }), OPTS, workspace);
  });

/** What one sweep sent to Scheduler, as [command, name, state]. */
async function sent(): Promise<string[][]> {
  scheduler.resetHistory();
  spy.reset();
  await sweepOnce();
  expect(spy.fullReads).toEqual([]);
  return scheduler.calls().map((call) => {
    const command = call.args[0] as {
      constructor: { name: string };
      input: { Name?: string; State?: string };
    };
    const { Name = '', State } = command.input;
    return [command.constructor.name, Name, ...(State ? [State] : [])];
  });
}

function standIn(): void {
  scheduler.reset();
  scheduler.on(CreateScheduleCommand).callsFake((input: CreateScheduleCommandInput) => {
    if (refuseOnce.delete(input.Name!)) throw new Error('Rate exceeded');
    if (held.has(input.Name!))
      throw new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} });
    held.set(input.Name!, input);
    return { ScheduleArn: `arn:${input.Name}` };
  });
  scheduler.on(UpdateScheduleCommand).callsFake((input: CreateScheduleCommandInput) => {
    if (!held.has(input.Name!))
      throw new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} });
    held.set(input.Name!, input);
    return { ScheduleArn: `arn:${input.Name}` };
  });
  scheduler.on(DeleteScheduleCommand).callsFake((input: { Name: string }) => {
    if (!held.delete(input.Name))
      throw new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} });
    return {};
  });
}

const IMAP = {
  type: 'imap' as const,
  host: 'imap.fastmail.com',
  port: 993,
  tls: true,
  user: 'me@fastmail.com',
  credential: 'MAIL_PASSWORD',
  mailbox: 'INBOX',
  auth: 'password' as const,
};

beforeAll(async () => {
  const made = await makeEngine();
  dir = made.dir;
  store = await newStore();
  engine = { ...made.engine, store };
  // The registry (only `default` here) is not under test: it lives in memory.
  platform = platformOver(new MemoryStore(), (workspace) => {
    expect(workspace).toBe('default');
    return engine;
  });
  spy = spyOnStore(store);
  credentials = new Credentials(store, LocalCipher.inStateDir(path.join(dir, 'state')));
  await saveProfile(store, { time_zone: 'Europe/Paris' });
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => standIn());

it('a workflow resumed from the CLI (nothing announced) has its schedule ENABLED at the next sweep, once', async () => {
  // Saved paused for a credential it lacks; the schedule-sync function made its schedule DISABLED.
  await addDemoWorkflow(engine, dir, {
    id: 'mail',
    name: 'Mail',
    trigger: { schedule: SCHEDULE },
    source: IMAP,
  });
  await pauseUntilSet(store, 'mail', ['MAIL_PASSWORD']);
  const event = deliver({
    Source: 'handoff',
    DetailType: 'handoff.workflow',
    Detail: JSON.stringify({ workflow_id: 'mail', change: 'saved', workspace: 'default' }),
  });
  expect(await syncWorkflowSchedule(() => store, new SchedulerClient({}), OPTS, event)).toEqual({
    workflow_id: 'mail',
    schedule: 'created',
  });
  expect(held.get('mail')).toMatchObject({ State: 'DISABLED', ScheduleExpressionTimezone: 'Europe/Paris' });
  // What schedule-sync made is noted: the sweep has nothing to do.
  expect(await sent()).toEqual([]);

  // `handoff credentials set MAIL_PASSWORD`: resumed in the store, announced to nobody.
  await credentials.set('MAIL_PASSWORD', new Secret('app-password'));
  const resumed = await resumeWhenSet({ store, credentials, workspace: 'default' });
  expect(resumed.resumed).toEqual([{ workflow_id: 'mail', name: 'Mail' }]);
  expect(held.get('mail')?.State).toBe('DISABLED');

  expect(await sent()).toEqual([['UpdateScheduleCommand', 'mail', 'ENABLED']]);
  expect(scheduler).toHaveReceivedCommandTimes(UpdateScheduleCommand, 1);
  expect(scheduler).toHaveReceivedCommandWith(UpdateScheduleCommand, {
    Name: 'mail',
    GroupName: GROUP,
    ScheduleExpression: SCHEDULE,
    ScheduleExpressionTimezone: 'Europe/Paris',
    State: 'ENABLED',
    Target: expect.objectContaining({ Arn: ARNS.trigger, RoleArn: ARNS.schedulerRole }),
  });
  expect(held.get('mail')?.State).toBe('ENABLED');
  expect(await sent()).toEqual([]);
});

it('a credential deleted from the CLI pauses the workflows that need it: the sweep disables their schedule', async () => {
  await credentials.delete('MAIL_PASSWORD');
  expect(await pauseWhenDeleted({ store, workspace: 'default' }, 'MAIL_PASSWORD')).toEqual([
    { workflow_id: 'mail', name: 'Mail' },
  ]);
  expect(await getScheduleState(store, 'mail')).toMatchObject({ paused: true, needs: ['MAIL_PASSWORD'] });
  expect(held.get('mail')?.State).toBe('ENABLED');

  expect(await sent()).toEqual([['UpdateScheduleCommand', 'mail', 'DISABLED']]);
  expect(held.get('mail')).toMatchObject({ State: 'DISABLED', ScheduleExpression: SCHEDULE });
  expect(await sent()).toEqual([]);
});

it('a workflow added with a schedule and never synced is created by the sweep; removed, its schedule is deleted', async () => {
  const added: Workflow = await addDemoWorkflow(engine, dir, {
    id: 'digest',
    name: 'Digest',
    trigger: { schedule: 'rate(1 hour)' },
  });
  expect(held.has('digest')).toBe(false);

  expect(await sent()).toEqual([['CreateScheduleCommand', 'digest', 'ENABLED']]);
  expect(held.get('digest')).toMatchObject({
    ScheduleExpression: 'rate(1 hour)',
    ScheduleExpressionTimezone: 'Europe/Paris',
    FlexibleTimeWindow: { Mode: 'OFF' },
  });
  expect(await sent()).toEqual([]);

  // Its schedule taken off (`workflows add` again without one): deleted, and forgotten.
  await saveWorkflow(store, { ...added, trigger: { manual: true } });
  expect(await sent()).toEqual([['DeleteScheduleCommand', 'digest']]);
  expect((await syncedSchedules(store)).has('digest')).toBe(false);
  expect(await sent()).toEqual([]);

  // Scheduled again, then removed (`handoff workflows remove`).
  await saveWorkflow(store, added);
  expect(await sent()).toEqual([['CreateScheduleCommand', 'digest', 'ENABLED']]);
  await deleteWorkflow(store, 'digest');
  expect(await sent()).toEqual([['DeleteScheduleCommand', 'digest']]);
  expect(held.has('digest')).toBe(false);
  expect((await syncedSchedules(store)).has('digest')).toBe(false);
  expect(await sent()).toEqual([]);
});

it('a time zone changed from the CLI reaches every schedule at the next sweep (one deleted meanwhile is made again)', async () => {
  await saveProfile(store, { time_zone: 'America/New_York' });
  expect(await sent()).toEqual([['UpdateScheduleCommand', 'mail', 'DISABLED']]);
  expect(held.get('mail')?.ScheduleExpressionTimezone).toBe('America/New_York');
  expect(await sent()).toEqual([]);

  held.delete('mail'); // by hand, in the console
  await saveProfile(store, { time_zone: 'Asia/Tokyo' });
  expect(await sent()).toEqual([
    ['UpdateScheduleCommand', 'mail', 'DISABLED'],
    ['CreateScheduleCommand', 'mail', 'DISABLED'],
  ]);
  expect(held.get('mail')).toMatchObject({ ScheduleExpressionTimezone: 'Asia/Tokyo', State: 'DISABLED' });
  expect(await sent()).toEqual([]);
});

it('a schedule Scheduler refuses is reported, the others still synced, and tried again at the next sweep', async () => {
  await addDemoWorkflow(engine, dir, { id: 'alpha', name: 'Alpha', trigger: { schedule: 'rate(2 hours)' } });
  await addDemoWorkflow(engine, dir, { id: 'beta', name: 'Beta', trigger: { schedule: 'rate(3 hours)' } });
  refuseOnce.add('alpha');

  scheduler.resetHistory();
  const swept = await sweepOnce();
  expect(swept.schedules).toEqual({
    synced: [{ workflow_id: 'beta', schedule: 'created' }],
    failed: [{ workflow_id: 'alpha', reason: 'Error: Rate exceeded' }],
  });
  expect(held.has('alpha')).toBe(false);

  expect(await sent()).toEqual([['CreateScheduleCommand', 'alpha', 'ENABLED']]);
  expect(held.has('alpha')).toBe(true);
  expect(await sent()).toEqual([]);
});

it("a second workspace with a workflow of the same id keeps its own schedule: removing one touches not the other's", async () => {
  // Prepare: team-b's store on its own table, its `mail` scheduled; the default's `mail` is too.
  const teamB = await newStore();
  await saveProfile(teamB, { time_zone: 'UTC' });
  const mailOfB = await getWorkflow(store, 'mail');
  await saveWorkflow(teamB, { ...mailOfB, trigger: { schedule: 'rate(4 hours)' } });
  const reconcileB = () => reconcileSchedules(teamB, new SchedulerClient({}), OPTS, 'team-b');
  expect((await reconcileB()).synced).toEqual([{ workflow_id: 'mail', schedule: 'created' }]);
  expect(held.get('team-b.mail')).toMatchObject({ ScheduleExpression: 'rate(4 hours)', State: 'ENABLED' });
  const defaultsMail = held.get('mail');
  expect(defaultsMail).toBeDefined();
  expect(await sent()).toEqual([]);

  // Act: team-b removes its `mail`.
  await deleteWorkflow(teamB, 'mail');
  scheduler.resetHistory();
  expect((await reconcileB()).synced).toEqual([{ workflow_id: 'mail', schedule: 'deleted' }]);

  // Assert: only team-b's schedule went; the default workspace's is as it was, and its sweep sends nothing.
  expect(scheduler.calls().map((c) => (c.args[0].input as { Name: string }).Name)).toEqual(['team-b.mail']);
  expect(held.has('team-b.mail')).toBe(false);
  expect(held.get('mail')).toEqual(defaultsMail);
  expect(await sent()).toEqual([]);
});

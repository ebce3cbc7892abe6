/**
 * Pausing a schedule on AWS: the API (as the API function serves it, on DynamoDB) records
 * the pause and puts a `handoff.workflow` event on the bus; the schedule-sync function,
 * handed that event, sets the EventBridge Scheduler schedule `State: DISABLED` (and
 * ENABLED on resume), read in the profile's time zone. Setting the credential a workflow was
 * paused for (`PUT /api/credentials/:name`) resumes it the same way. EventBridge and Scheduler are
 * mocked at the command level and their requests asserted; DynamoDB is dynalite.
 */
import { promises as fs } from 'node:fs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  ConflictException,
  CreateScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { getScheduleState, pauseUntilSet } from '../../shared/schedules/schedules.ts';
import { createChat, updateChat } from '../../shared/chats/chat-repository.ts';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { syncWorkflowSchedule } from '../../shared/aws/schedule-sync.ts';
import { workflowEvents } from '../../shared/aws/workflow-events.ts';
import { saveProfile } from '../../shared/profile/profile.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import type { DynamoDbStore } from '../../shared/store/dynamodb-store.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { addDemoWorkflow, makeEngine } from '../web/support.ts';
import { ARNS, asIamCaller, BUS, deliver, GROUP, UI } from './support.ts';

const eventBridge = mockClient(EventBridgeClient);
const scheduler = mockClient(SchedulerClient);
const OPTS = { groupName: GROUP, targetArn: ARNS.trigger, roleArn: ARNS.schedulerRole };
const SCHEDULE = 'cron(0 8 ? * MON-FRI *)';
const newStore = dynaliteTables('handoff-schedules');

let dir: string;
let engine: EngineDeps;
let store: DynamoDbStore;

beforeAll(async () => {
  const made = await makeEngine({ UI_BASE_URL: UI });
  dir = made.dir;
  store = await newStore();
  engine = { ...made.engine, store };
  await addDemoWorkflow(engine, dir, { id: 'watch', name: 'Watch', trigger: { schedule: SCHEDULE } });
  await saveProfile(store, { time_zone: 'Europe/Paris' });
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it('pausing over the API disables the EventBridge schedule; resuming enables it, in the profile time zone', async () => {
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
  scheduler
    .on(CreateScheduleCommand)
    .resolvesOnce({ ScheduleArn: 'arn' }) // then it exists
    .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
  scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
  const { app } = lambdaWebApp({
    engine,
    env: (await makeEngine({ UI_BASE_URL: UI })).env,
    linkKey: { get: async () => Buffer.alloc(32, 1) },
    onWorkflowChange: workflowEvents(new EventBridgeClient({ region: 'us-east-1' }), BUS),
  });
  const defaultStoreOnly = (only: typeof store) => (workspace: string) => {
    expect(workspace).toBe('default');
    return only;
  };
  const sync = async () => {
    const entries = eventBridge.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);
    return syncWorkflowSchedule(
      defaultStoreOnly(store),
      new SchedulerClient({ region: 'us-east-1' }),
      OPTS,
      deliver(entries.at(-1)!),
    );
  };

  const paused = await asIamCaller(app, `${UI}/api/schedules/watch/pause`, { method: 'POST' });
  expect(paused.status).toBe(200);
  expect(await paused.json()).toMatchObject({
    workflow_id: 'watch',
    paused: true,
    time_zone: 'Europe/Paris',
  });
  expect(eventBridge).toHaveReceivedCommandWith(PutEventsCommand, {
    Entries: [
      expect.objectContaining({
        EventBusName: BUS,
        DetailType: 'handoff.workflow',
        Detail: JSON.stringify({ workflow_id: 'watch', change: 'saved', workspace: 'default' }),
      }),
    ],
  });
  expect(await sync()).toEqual({ workflow_id: 'watch', schedule: 'created' });
  expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, {
    Name: 'watch',
    GroupName: GROUP,
    ScheduleExpression: SCHEDULE,
    ScheduleExpressionTimezone: 'Europe/Paris',
    State: 'DISABLED',
  });

  const resumed = await asIamCaller(app, `${UI}/api/schedules/watch/resume`, { method: 'POST' });
  expect(resumed.status).toBe(200);
  expect(eventBridge).toHaveReceivedCommandTimes(PutEventsCommand, 2);
  expect(await sync()).toEqual({ workflow_id: 'watch', schedule: 'updated' });
  expect(scheduler).toHaveReceivedCommandWith(UpdateScheduleCommand, {
    Name: 'watch',
    ScheduleExpressionTimezone: 'Europe/Paris',
    State: 'ENABLED',
  });

  // A workflow without a schedule: 404, one line, and nothing is announced.
  await addDemoWorkflow(engine, dir);
  const refused = await asIamCaller(app, `${UI}/api/schedules/inbox-triage/pause`, { method: 'POST' });
  expect(refused.status).toBe(404);
  expect(await refused.json()).toEqual({
    error: 'workflow "inbox-triage" has no schedule (trigger.schedule), so there is nothing to pause',
  });
  expect(eventBridge).toHaveReceivedCommandTimes(PutEventsCommand, 2);
});

it('setting the missing credential over the API resumes a workflow paused for it: its EventBridge schedule is ENABLED again', async () => {
  eventBridge.reset();
  scheduler.reset();
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e2' }] });
  scheduler
    .on(CreateScheduleCommand)
    .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
  scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
  const credentials = new Credentials(store, LocalCipher.inStateDir(path.join(dir, 'state')));
  const onDynamo = { ...engine, credentials };
  await addDemoWorkflow(onDynamo, dir, {
    id: 'fastmail',
    name: 'Fastmail',
    trigger: { schedule: SCHEDULE },
    source: {
      type: 'imap',
      host: 'imap.fastmail.com',
      port: 993,
      tls: true,
      user: 'me@fastmail.com',
      credential: 'MAIL_PASSWORD',
      mailbox: 'INBOX',
      auth: 'password',
    },
  });
  await pauseUntilSet(store, 'fastmail', ['MAIL_PASSWORD']);
  const { app } = lambdaWebApp({
    engine: onDynamo,
    env: (await makeEngine({ UI_BASE_URL: UI })).env,
    linkKey: { get: async () => Buffer.alloc(32, 1) },
    onWorkflowChange: workflowEvents(new EventBridgeClient({ region: 'us-east-1' }), BUS),
  });

  const set = await asIamCaller(app, `${UI}/api/credentials/MAIL_PASSWORD`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ value: 'app-password' }),
  });
  expect(set.status).toBe(200);
  expect(await set.json()).toMatchObject({ name: 'MAIL_PASSWORD', resumed: [{ workflow_id: 'fastmail' }] });
  expect(await getScheduleState(store, 'fastmail')).toMatchObject({ paused: false });
  expect(eventBridge).toHaveReceivedCommandTimes(PutEventsCommand, 1);
  expect(eventBridge).toHaveReceivedCommandWith(PutEventsCommand, {
    Entries: [
      expect.objectContaining({
        EventBusName: BUS,
        DetailType: 'handoff.workflow',
        Detail: JSON.stringify({ workflow_id: 'fastmail', change: 'saved', workspace: 'default' }),
      }),
    ],
  });

  // The schedule-sync function, handed that event, turns the schedule back on.
  const entry = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries![0]!;
  const synced = await syncWorkflowSchedule(
    () => store,
    new SchedulerClient({ region: 'us-east-1' }),
    OPTS,
    deliver(entry),
  );
  expect(synced).toEqual({ workflow_id: 'fastmail', schedule: 'updated' });
  expect(scheduler).toHaveReceivedCommandWith(UpdateScheduleCommand, {
    Name: 'fastmail',
    GroupName: GROUP,
    ScheduleExpression: SCHEDULE,
    ScheduleExpressionTimezone: 'Europe/Paris',
    State: 'ENABLED',
  });
});

it("the chat card's credential field resumes it the same way on AWS (the engine announces the change)", async () => {
  eventBridge.reset();
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e3' }] });
  const credentials = new Credentials(store, LocalCipher.inStateDir(path.join(dir, 'state')));
  const onDynamo: EngineDeps = {
    ...engine,
    credentials,
    onWorkflowChange: workflowEvents(new EventBridgeClient({ region: 'us-east-1' }), BUS),
  };
  const imap = {
    type: 'imap' as const,
    host: 'imap.fastmail.com',
    port: 993,
    tls: true,
    user: 'me@fastmail.com',
    credential: 'WORK_PASSWORD',
    mailbox: 'INBOX',
    auth: 'password' as const,
  };
  const saved = await addDemoWorkflow(onDynamo, dir, {
    id: 'work',
    name: 'Work',
    trigger: { schedule: SCHEDULE },
    source: imap,
  });
  await pauseUntilSet(store, 'work', ['WORK_PASSWORD']);
  const chat = await createChat(store);
  await updateChat(store, chat.id, () => ({ draft: { ...saved, id: 'work-2', name: 'Work again' } }));
  const { app } = lambdaWebApp({
    engine: onDynamo,
    env: (await makeEngine({ UI_BASE_URL: UI })).env,
    linkKey: { get: async () => Buffer.alloc(32, 1) },
    onWorkflowChange: async () => undefined, // the card goes through the engine's own listener
  });

  const set = await asIamCaller(app, `${UI}/api/chats/${chat.id}/credential`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'WORK_PASSWORD', value: 'work-secret' }),
  });
  expect(set.status).toBe(200);
  const reply = (await set.json()) as { text: string };
  expect(reply.text).toContain('Resumed work ("Work")');
  expect(JSON.stringify(reply)).not.toContain('work-secret');
  expect(await getScheduleState(store, 'work')).toMatchObject({ paused: false });
  expect(eventBridge).toHaveReceivedCommandWith(PutEventsCommand, {
    Entries: [
      expect.objectContaining({
        DetailType: 'handoff.workflow',
        Detail: JSON.stringify({ workflow_id: 'work', change: 'saved', workspace: 'default' }),
      }),
    ],
  });
});

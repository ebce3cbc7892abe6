import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { lambdaClients } from '../../shared/aws/clients.ts';
import { EventBridgeDispatcher } from '../../shared/aws/eventbridge-dispatcher.ts';
import { engineForLambda } from '../../shared/aws/lambda-engine.ts';
import { boundVars, FUNCTION_BINDINGS, type LambdaFunction } from '../../shared/aws/deployment.ts';
import {
  ENGINE_OPTIONAL_VARS,
  ENGINE_VARS,
  lambdaEnvFor,
  loadLambdaEnv,
} from '../../shared/aws/lambda-env.ts';
import { scheduleNameFor, syncSchedule } from '../../shared/aws/schedule-sync.ts';
import { linkKeyFromSecret, SecretLinkKey } from '../../shared/aws/secret-link-key.ts';
import { SecretValue } from '../../shared/aws/secret-value.ts';
import { snsSubject, SnsNotifier } from '../../shared/aws/sns-notifier.ts';
import { workflowEvents } from '../../shared/aws/workflow-events.ts';
import { NotifyError } from '../../shared/notify/notifier.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';
import { ARNS, deploymentEnv } from './support.ts';

const eventBridge = mockClient(EventBridgeClient);
const sns = mockClient(SNSClient);
const scheduler = mockClient(SchedulerClient);
const secrets = mockClient(SecretsManagerClient);
beforeEach(() => {
  eventBridge.reset();
  sns.reset();
  scheduler.reset();
  secrets.reset();
});

const region = { region: 'us-east-1' };
const OPTS = { groupName: 'g', targetArn: ARNS.trigger, roleArn: ARNS.schedulerRole };
const workflow = (trigger: Workflow['trigger']) => ({ id: 'inbox', name: 'Inbox', trigger }) as Workflow;

describe('EventBridge', () => {
  it('dispatches a step as one handoff.step entry, and throws when the entry is refused', async () => {
    eventBridge.on(PutEventsCommand).resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const dispatcher = new EventBridgeDispatcher(new EventBridgeClient(region), 'bus', 'team-b');
    await dispatcher.dispatch({ run_id: 'run_1', node: 'completer' });
    expect(eventBridge).toHaveReceivedCommandWith(PutEventsCommand, {
      Entries: [
        {
          EventBusName: 'bus',
          Source: 'handoff',
          DetailType: 'handoff.step',
          // The run's workspace travels with the step: the next function works in it.
          Detail: JSON.stringify({ run_id: 'run_1', node: 'completer', workspace: 'team-b' }),
        },
      ],
    });
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }],
    });
    await expect(dispatcher.dispatch({ run_id: 'run_1', node: 'resume' })).rejects.toThrow(
      /refused 1 event.*ThrottlingException Rate exceeded/,
    );
    await expect(
      workflowEvents(new EventBridgeClient(region), 'bus')('inbox', 'saved', 'default'),
    ).rejects.toThrow(/ThrottlingException/);
  });
});

describe('SNS', () => {
  it('keeps the subject to 100 printable ASCII characters and the link in the message; a failure carries its reason', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    const notifier = new SnsNotifier(new SNSClient(region), ARNS.topic);
    const name = `Café triage — ${'x'.repeat(150)}\nsecond line`;
    await notifier.notify({
      kind: 'asked',
      runId: 'run_1',
      workflowName: name,
      count: 1,
      link: 'https://h/decide/d?token=t',
    });
    await notifier.notify({
      kind: 'completed',
      runId: 'run_1',
      workflowName: 'Inbox',
      summary: '3 acted',
      link: 'https://h/runs/run_1',
    });
    await notifier.notify({
      kind: 'failed',
      runId: 'run_2',
      workflowName: 'Inbox',
      reason: 'the model provider gave up after 3 attempts',
      link: 'https://h/runs/run_2',
    });
    const [asked, done, failed] = sns.commandCalls(PublishCommand).map((c) => c.args[0].input);
    expect(asked!.Subject!.length).toBeLessThanOrEqual(100);
    expect(asked!.Subject).toMatch(/^Handoff: 1 question for you \(Cafe triage \? x+\.\.\.$/);
    expect(asked!.Message).toContain('https://h/decide/d?token=t');
    expect(asked!.MessageAttributes?.kind).toEqual({ DataType: 'String', StringValue: 'asked' });
    expect(done).toMatchObject({ TopicArn: ARNS.topic, Subject: 'Handoff: Inbox finished' });
    expect(done!.Message).toContain('3 acted');
    expect(done!.Message).toContain('See the run: https://h/runs/run_1');
    expect(failed).toMatchObject({ TopicArn: ARNS.topic, Subject: 'Handoff: Inbox failed' });
    expect(failed!.MessageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'failed' },
      run_id: { DataType: 'String', StringValue: 'run_2' },
    });
    expect(failed!.Message).toBe(
      'Inbox: run run_2 failed: the model provider gave up after 3 attempts\n\nSee the run: https://h/runs/run_2\n',
    );
    expect(snsSubject('\n\t')).toBe('Handoff');
  });

  it('tells of a schedule that could not be kept: the workflow, the reason and the Schedules page, no run', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    await new SnsNotifier(new SNSClient(region), ARNS.topic).notify({
      kind: 'schedule_failed',
      workflowName: 'Inbox',
      reason: 'schedule-sync gave up after 3 attempts: ThrottlingException',
      link: 'https://h/schedules',
    });
    const [told] = sns.commandCalls(PublishCommand).map((c) => c.args[0].input);
    expect(told).toMatchObject({ TopicArn: ARNS.topic, Subject: "Handoff: Inbox's schedule failed" });
    expect(told!.MessageAttributes).toEqual({ kind: { DataType: 'String', StringValue: 'schedule_failed' } });
    expect(told!.Message).toBe(
      'Inbox: its schedule could not be updated, so its runs do not start on time until the workflow is saved again: schedule-sync gave up after 3 attempts: ThrottlingException\n\nSee the schedules: https://h/schedules\n',
    );
  });
});

describe('Secrets Manager', () => {
  it('reads a secret once per container; a failed read is tried again', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({ SecretString: ' s3cret \n' });
    const value = new SecretValue(new SecretsManagerClient(region), ARNS.apiKey);
    await expect(value.get()).rejects.toThrow('throttled');
    expect(await value.get()).toBe('s3cret');
    expect(await value.get()).toBe('s3cret');
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 2);
  });

  it('takes the link key as base64 or raw text, at least 32 bytes', async () => {
    const key = Buffer.alloc(32, 5);
    expect(linkKeyFromSecret(key.toString('base64'))).toEqual(key);
    const password = 'correct-horse-battery-staple-0123456789';
    expect(linkKeyFromSecret(password)).toEqual(Buffer.from(password));
    expect(() => linkKeyFromSecret('short')).toThrow(/at least 32/);
    secrets
      .on(GetSecretValueCommand, { SecretId: ARNS.linkKey })
      .resolves({ SecretString: key.toString('base64') });
    const linkKey = new SecretLinkKey(new SecretsManagerClient(region), ARNS.linkKey);
    expect(await linkKey.get()).toEqual(key);
    expect(await linkKey.get()).toEqual(key);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });
});

describe('EventBridge Scheduler', () => {
  const client = () => new SchedulerClient(region);

  it('updates a schedule that exists, with the same request', async () => {
    scheduler
      .on(CreateScheduleCommand)
      .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const flow = workflow({ schedule: 'rate(1 hour)' });
    expect(await syncSchedule(client(), OPTS, flow, 'inbox')).toBe('updated');
    const created = scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input;
    expect(scheduler.commandCalls(UpdateScheduleCommand)[0]!.args[0].input).toEqual(created);
    expect(created).toMatchObject({
      Name: 'inbox',
      GroupName: 'g',
      ScheduleExpression: 'rate(1 hour)',
      // Scheduler fills in the time it fired: the trigger keys the run on it.
      Target: {
        Input:
          '{"workflow_id":"inbox","schedule":"rate(1 hour)","scheduled_time":"<aws.scheduler.scheduled-time>","workspace":"default"}',
      },
    });
  });

  it('deletes the schedule of a workflow that is gone or no longer scheduled; a missing one is fine', async () => {
    scheduler
      .on(DeleteScheduleCommand)
      .resolvesOnce({})
      .rejects(new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} }));
    expect(await syncSchedule(client(), OPTS, workflow({ manual: true }), 'inbox')).toBe('deleted');
    expect(await syncSchedule(client(), OPTS, null, 'inbox')).toBe('absent');
    expect(scheduler).toHaveReceivedCommandTimes(DeleteScheduleCommand, 2);
    expect(scheduler).not.toHaveReceivedCommand(CreateScheduleCommand);
    scheduler.on(DeleteScheduleCommand).rejects(new Error('AccessDenied'));
    await expect(syncSchedule(client(), OPTS, null, 'inbox')).rejects.toThrow('AccessDenied');
  });

  it('names a schedule after its workflow, within 64 characters', () => {
    expect(scheduleNameFor('inbox-triage')).toBe('inbox-triage');
    expect(scheduleNameFor('x'.repeat(64))).toHaveLength(64);
    expect(scheduleNameFor('not a slug!')).toMatch(/^wf-[0-9a-f]{32}$/);
  });
});

describe('the engine on Lambda', () => {
  const base = deploymentEnv('t', 'http://127.0.0.1:1', '/tmp/handoff');
  const notice = {
    kind: 'completed',
    runId: 'run_1',
    workflowName: 'Inbox',
    summary: 'done',
    link: 'https://h/runs/run_1',
  } as const;

  it('notifies through SNS when the function has a topic, and fails visibly when it has none', async () => {
    const { NOTIFY_CHANNEL: _unset, ...withoutChannel } = base;
    const env = lambdaEnvFor('completer', withoutChannel);
    expect(env.NOTIFY_CHANNEL).toBe('sns');
    const engine = engineForLambda('completer', env, lambdaClients(env));
    sns.on(PublishCommand).resolvesOnce({ MessageId: 'm' }).rejects(new Error('KMS key disabled'));
    await engine.notifier.notify(notice);
    expect(sns).toHaveReceivedCommandWith(PublishCommand, { TopicArn: ARNS.topic });
    await expect(engine.notifier.notify(notice)).rejects.toThrow(NotifyError);
    await expect(engine.notifier.notify(notice)).rejects.toThrow(
      /^could not notify via sns: Error: KMS key disabled$/,
    );

    // Every engine function is bound to the topic now; an engine on an environment without one still fails visibly.
    const quiet = loadLambdaEnv([...ENGINE_VARS], [...ENGINE_OPTIONAL_VARS], {
      ...withoutChannel,
      NOTIFY_TOPIC_ARN: '',
      LINK_KEY_SECRET_ARN: '',
    });
    expect(quiet.NOTIFY_CHANNEL).toBe('console');
    await expect(
      engineForLambda('trigger', quiet, lambdaClients(quiet)).notifier.notify(notice),
    ).rejects.toThrow(/no notify channel: set NOTIFY_TOPIC_ARN/);
    // A part its handler does not wire refuses with one line naming the function.
    const trigger = engineForLambda('trigger', quiet, lambdaClients(quiet));
    await expect(trigger.links.urlFor('d', new Date())).rejects.toThrow(
      /^the trigger function is not bound to the link key/,
    );
    const stream = (await trigger.models('primary')).stream([])[Symbol.asyncIterator]();
    await expect(stream.next()).rejects.toThrow(/^the trigger function makes no model calls/);
  });
});

describe('the Lambda environment', () => {
  const base = deploymentEnv('t', 'http://127.0.0.1:1', '/tmp/handoff');

  it('gives each function what it needs, optional engine variables when set', () => {
    const env = lambdaEnvFor('trigger', { ...base, LINK_KEY_SECRET_ARN: '' });
    expect(env).toMatchObject({ EVENT_BUS_NAME: 'handoff-bus', USE_DYNAMODB: true, HANDOFF_TABLE: 't' });
    expect(env.LINK_KEY_SECRET_ARN).toBeUndefined();
    expect(() => lambdaEnvFor('trigger', { ...base, NOTIFY_TOPIC_ARN: '' })).toThrow(
      'NOTIFY_TOPIC_ARN is not set: this Lambda function needs it',
    );
    expect(lambdaEnvFor('api', base).API_KEY_SECRET_ARN).toBe(ARNS.apiKey);
  });

  it('refuses a missing or bad variable with one line naming it', () => {
    const without = (name: string) => ({ ...base, [name]: undefined });
    expect(() => lambdaEnvFor('executor', without('NOTIFY_TOPIC_ARN'))).toThrow(
      /^NOTIFY_TOPIC_ARN is not set: this Lambda function needs it$/,
    );
    expect(() => lambdaEnvFor('schedule-sync', { ...base, SCHEDULER_ROLE_ARN: 'handoff-role' })).toThrow(
      /^SCHEDULER_ROLE_ARN=handoff-role is not valid: must be an ARN \(arn:aws:iam:...\)$/,
    );
    expect(() => lambdaEnvFor('trigger', { ...base, NOTIFY_TOPIC_ARN: 'topic' })).toThrow(
      /^NOTIFY_TOPIC_ARN=topic/,
    );
    expect(() => lambdaEnvFor('trigger', { ...base, USE_DYNAMODB: 'false' })).toThrow(/^USE_DYNAMODB=false/);
    expect(() => lambdaEnvFor('step-failed', without('HANDOFF_TABLE'))).toThrow(/^HANDOFF_TABLE is not set/);
  });

  it.each(Object.keys(FUNCTION_BINDINGS) as LambdaFunction[])(
    '%s refuses to start without any variable its bindings set (the list the stack binds from)',
    (fn) => {
      // Two are read on use, not at cold start: the channel defaults from the topic, the key opens credentials.
      const needed = boundVars(fn).filter((v) => v !== 'NOTIFY_CHANNEL' && v !== 'HANDOFF_KMS_KEY_ID');
      expect(needed.length).toBeGreaterThan(0);
      expect(() => lambdaEnvFor(fn, base)).not.toThrow();
      for (const name of needed)
        expect(() => lambdaEnvFor(fn, { ...base, [name]: undefined })).toThrow(
          new RegExp(`^${name}( is not set|=undefined is not valid)`),
        );
    },
  );
});

/**
 * The whole loop as AWS runs it, in this process: the handlers called with the events AWS
 * would send, DynamoDB real (dynalite), EventBridge/SNS/Scheduler/Secrets Manager mocked
 * at the command level (the requests asserted, the captured events handed on).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StepDetail } from '../../shared/aws/lambda-events.ts';
import { startedRun } from '../../shared/aws/lambda-handlers.ts';
import type { ScheduleInput } from '../../shared/aws/schedule-sync.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { describeCounts } from '../../shared/runs/counts.ts';
import { signDecisionToken } from '../../shared/links/decision-token.ts';
import { listDecisions } from '../../shared/runs/decision-repository.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../shared/sources/maildir/generate.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import type { Dovecot } from '../support/dovecot.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { messageIds } from '../support/imap-fixture.ts';
import { demoInboxOnImap, deployedCredentials, KMS_KEY, mockKms } from './imap-deployment.ts';
import { WorkspaceRegistry } from '../../shared/workspaces/registry.ts';
import {
  ARNS,
  BUS,
  deliver,
  deploymentEnv,
  failureRecord,
  GROUP,
  httpEvent,
  lambdaContext,
  UI,
} from './support.ts';

interface Handlers {
  api: typeof import('../../lambdas/api.ts').handler;
  trigger: typeof import('../../lambdas/trigger.ts').handler;
  executor: typeof import('../../lambdas/executor.ts').handler;
  resume: typeof import('../../lambdas/resume.ts').handler;
  completer: typeof import('../../lambdas/completer.ts').handler;
  scheduleSync: typeof import('../../lambdas/schedule-sync.ts').handler;
  stepFailed: typeof import('../../lambdas/step-failed.ts').handler;
  webhook: typeof import('../../lambdas/webhook.ts').handler;
}

const SCHEDULE = 'cron(0 8 * * ? *)';
const LINK_KEY = randomBytes(32);
const eventBridge = mockClient(EventBridgeClient);
const sns = mockClient(SNSClient);
const scheduler = mockClient(SchedulerClient);
const secrets = mockClient(SecretsManagerClient);
mockKms(); // the mailbox password is sealed with KMS, as on a deployment

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let dir: string;
let maildir: string;
let dovecot: Dovecot;
let imapYaml: string;
let client: DynamoDBClient;
let store: DynamoDbStore;
let h: Handlers;

/** Every entry put on the bus so far, of one detail type. */
function entries(detailType?: string): PutEventsRequestEntry[] {
  const all = eventBridge.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);
  return detailType ? all.filter((e) => e.DetailType === detailType) : all;
}
function lastStep(node: string): PutEventsRequestEntry {
  const found = entries('handoff.step').filter(
    (e) => (JSON.parse(e.Detail!) as { node: string }).node === node,
  );
  expect(found.length).toBeGreaterThan(0);
  return found.at(-1)!;
}
const ctx = () => lambdaContext();
const WEBHOOK_SECRET = 'webhook-secret-0123456789';

/** Runs `fn` with the variables unset (module-scope reads see them missing), then restores them. */
async function withoutEnv<T>(names: string[], fn: () => Promise<T>): Promise<T> {
  const saved = names.map((n) => [n, process.env[n]] as const);
  for (const n of names) delete process.env[n];
  try {
    return await fn();
  } finally {
    for (const [n, v] of saved) if (v !== undefined) process.env[n] = v;
  }
}
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';
const scheduled = (text: string) =>
  text.replace('trigger: { manual: true }', `trigger: { schedule: "${SCHEDULE}" }`);

beforeAll(async () => {
  dynalite = await startDynalite();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-aws-'));
  maildir = path.join(dir, 'Maildir');
  await createDemoMaildir(maildir);
  const table = `handoff-${Date.now()}`;
  Object.assign(process.env, deploymentEnv(table, dynalite.endpoint, path.join(dir, 'state')), {
    HANDOFF_KMS_KEY_ID: KMS_KEY,
  });
  client = dynaliteClient(dynalite.endpoint);
  await ensureTable(client, table);
  store = new DynamoDbStore(createDocumentClient(client), table);
  // The demo inbox on a real IMAP server, its password sealed in the deployment's store.
  ({ dovecot, yaml: imapYaml } = await demoInboxOnImap(deployedCredentials(store)));

  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
  scheduler.on(DeleteScheduleCommand).resolves({});
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.linkKey })
    .resolves({ SecretString: LINK_KEY.toString('base64') });
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.apiKey })
    .resolves({ SecretString: 'api-key-0123456789' });
  secrets.on(GetSecretValueCommand, { SecretId: ARNS.webhook }).resolves({ SecretString: WEBHOOK_SECRET });

  // Clients and env are read at module scope: import only now.
  h = {
    api: (await import('../../lambdas/api.ts')).handler,
    trigger: (await import('../../lambdas/trigger.ts')).handler,
    executor: (await import('../../lambdas/executor.ts')).handler,
    resume: (await import('../../lambdas/resume.ts')).handler,
    completer: (await import('../../lambdas/completer.ts')).handler,
    scheduleSync: (await import('../../lambdas/schedule-sync.ts')).handler,
    stepFailed: (await import('../../lambdas/step-failed.ts')).handler,
    webhook: await withoutEnv(['LINK_KEY_SECRET_ARN'], async () => {
      return (await import('../../lambdas/webhook.ts')).handler; // as the stack configures it
    }),
  };
});

afterAll(async () => {
  client?.destroy();
  await dynalite?.stop();
  await dovecot?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the loop on AWS (in-process)', () => {
  let runId: string;
  let executorEntry: PutEventsRequestEntry;
  let firstPost: APIGatewayProxyEventV2;
  let firstDecision: string;

  it('saving a workflow over the API creates its EventBridge schedule', async () => {
    // A Lambda has no local folders: the API refuses a Maildir workflow, and announces nothing.
    const refused = await h.api(
      httpEvent('PUT', '/api/workflows/inbox-triage', {
        body: scheduled(demoWorkflowYaml(maildir)),
        contentType: 'application/yaml',
      }),
      ctx(),
    );
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body!)).toEqual({
      error: expect.stringMatching(/^a Lambda function has no local folders/),
    });
    expect(entries('handoff.workflow')).toEqual([]);
    // The same workflow on the IMAP mailbox is saved, and the API announces it.
    const saved = await h.api(
      httpEvent('PUT', '/api/workflows/inbox-triage', {
        body: scheduled(imapYaml),
        contentType: 'application/yaml',
      }),
      ctx(),
    );
    expect(saved.statusCode).toBe(201);
    const [changed] = entries('handoff.workflow');
    expect(changed).toMatchObject({ EventBusName: BUS, Source: 'handoff' });
    expect(JSON.parse(changed!.Detail!)).toEqual({
      workflow_id: 'inbox-triage',
      change: 'saved',
      workspace: 'default',
    });

    expect(await h.scheduleSync(deliver(changed!), ctx())).toEqual({
      workflow_id: 'inbox-triage',
      schedule: 'created',
    });
    expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, {
      Name: 'inbox-triage',
      GroupName: GROUP,
      ScheduleExpression: SCHEDULE,
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: ARNS.trigger,
        RoleArn: ARNS.schedulerRole,
        Input: JSON.stringify({
          workflow_id: 'inbox-triage',
          schedule: SCHEDULE,
          scheduled_time: '<aws.scheduler.scheduled-time>',
          workspace: 'default',
        }),
      },
    });
  });

  it('schedule → trigger → executor: the run pauses in DynamoDB and SNS carries the link', async () => {
    const template = scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input.Target!.Input!;
    // What Scheduler sends: its context attribute replaced by the time the schedule fired.
    const input = JSON.parse(
      template.replace('<aws.scheduler.scheduled-time>', '2026-11-30T08:00:00Z'),
    ) as ScheduleInput;
    const started = startedRun(await h.trigger(input, ctx()));
    expect(started).toMatchObject({ status: 'running', duplicate: false });
    runId = started.run_id;
    executorEntry = lastStep('executor');
    // Scheduler delivers at least once: the same firing again starts no second run.
    const again = startedRun(await h.trigger(input, ctx()));
    expect(again).toMatchObject({ run_id: runId, duplicate: true });
    expect((await listRuns(store)).filter((r) => r.workflow_id === 'inbox-triage')).toHaveLength(1);
    expect(executorEntry).toMatchObject({ EventBusName: BUS, Source: 'handoff', DetailType: 'handoff.step' });
    expect(JSON.parse(executorEntry.Detail!)).toEqual({
      run_id: runId,
      node: 'executor',
      workspace: 'default',
    });
    expect((await getRun(store, runId)).trigger).toEqual({ kind: 'schedule', detail: SCHEDULE });

    const paused = await h.executor(deliver(executorEntry), ctx());
    expect(paused).toMatchObject({ run_id: runId, status: 'waiting' });
    const run = await getRun(store, runId);
    expect(run).toMatchObject({ status: 'waiting', dispatch: null, snapshot: expect.anything() });
    const pending = (await listDecisions(store)).filter((d) => d.status === 'pending');
    expect(pending.length).toBeGreaterThan(1);
    // The executor moved the sure items on the IMAP server; the asked ones are still in INBOX.
    const archived = (await listAudit(store, { runId }))
      .filter((e) => e.outcome === 'acted' && e.action === 'archive')
      .map((e) => e.item_id);
    expect(archived.length).toBeGreaterThan(0);
    expect((await messageIds(dovecot, 'Archive')).sort()).toEqual(archived.sort());
    const inbox = await messageIds(dovecot, 'INBOX');
    for (const d of pending) expect(inbox).toContain(d.item_id);

    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
    const publish = sns.commandCalls(PublishCommand)[0]!.args[0].input;
    expect(publish.TopicArn).toBe(ARNS.topic);
    expect(publish.Subject!.length).toBeLessThanOrEqual(100);
    expect(publish.Subject).toContain(`${pending.length} questions`);
    const link = /https:\/\/\S+/.exec(publish.Message!)![0];
    expect(link.startsWith(`${UI}/decide/`)).toBe(true);
    const url = new URL(link);
    firstDecision = decodeURIComponent(url.pathname.split('/').pop()!);
    expect(pending.map((d) => d.id)).toContain(firstDecision);

    // Opening the link shows the decision and changes nothing.
    const opened = await h.api(httpEvent('GET', `${url.pathname}${url.search}`), ctx());
    expect(opened.statusCode).toBe(200);
    expect(opened.headers?.['content-type']).toMatch(/text\/html/);
    const decision = pending.find((d) => d.id === firstDecision)!;
    expect(opened.body).toContain(
      decision.subject.replace(/&/g, '&amp;').replace(/'/g, '&#39;').slice(0, 20),
    );
    expect((await listDecisions(store)).find((d) => d.id === firstDecision)!.status).toBe('pending');

    // The form posts back, base64-encoded as HTTP APIs pass form bodies.
    const token = url.searchParams.get('token')!;
    firstPost = httpEvent('POST', `/decide/${firstDecision}`, {
      body: form({ token, action: 'skip', note: 'not for me' }),
      contentType: FORM,
      base64: true,
    });
  });

  it('a duplicate delivery of the executor step does nothing', async () => {
    const before = await getRun(store, runId);
    const [puts, publishes] = [entries().length, sns.commandCalls(PublishCommand).length];
    expect(await h.executor(deliver(executorEntry), ctx())).toMatchObject({ status: 'waiting' });
    expect(await getRun(store, runId)).toEqual(before);
    expect(entries()).toHaveLength(puts);
    expect(sns.commandCalls(PublishCommand)).toHaveLength(publishes);
  });

  it('answers through the decision pages are carried out as they arrive (handoff.carry → resume function); the last → resume → completer: the run completes', async () => {
    const answered = await h.api(firstPost, ctx());
    expect(answered.statusCode).toBe(200);
    expect(answered.body).toContain('Recorded');

    const [archiveNow, ...rest] = (await listDecisions(store)).filter(
      (d) => d.run_id === runId && d.status === 'pending',
    );
    // Another answer while others wait, from the signed API: archive.
    const archiveToken = signDecisionToken(LINK_KEY, archiveNow!.id, new Date(archiveNow!.expires_at));
    const archivedAnswer = await h.api(
      httpEvent('POST', `/decide/${archiveNow!.id}`, {
        body: form({ token: archiveToken, action: 'archive' }),
        contentType: FORM,
      }),
      ctx(),
    );
    expect(archivedAnswer.statusCode).toBe(200);
    expect(entries('handoff.step').filter((e) => e.Detail!.includes('"resume"'))).toHaveLength(0);
    // Each answer was sent on the bus to be carried out at once, not left for the last answer.
    const carries = entries('handoff.carry');
    expect(carries).toEqual([
      { EventBusName: BUS, Source: 'handoff', DetailType: 'handoff.carry', Detail: expect.any(String) },
      { EventBusName: BUS, Source: 'handoff', DetailType: 'handoff.carry', Detail: expect.any(String) },
    ]);
    expect(carries.map((e) => JSON.parse(e.Detail!) as unknown)).toEqual([
      { decision_id: firstDecision, workspace: 'default' },
      { decision_id: archiveNow!.id, workspace: 'default' },
    ]);
    const skipped = (await listDecisions(store)).find((d) => d.id === firstDecision)!;
    expect(await h.resume(deliver(carries[0]!), ctx())).toEqual({
      decision_id: firstDecision,
      run_id: runId,
      outcome: 'declined',
    });
    expect(await h.resume(deliver(carries[1]!), ctx())).toEqual({
      decision_id: archiveNow!.id,
      run_id: runId,
      outcome: 'acted',
    });
    // Carried out while the run still waits: the message is in Archive, audited once, counted.
    expect(await messageIds(dovecot, 'Archive')).toContain(archiveNow!.item_id);
    const waiting = await getRun(store, runId);
    expect(waiting.status).toBe('waiting');
    const byHuman = (await listAudit(store, { runId })).filter((e) => e.decided_by === 'human');
    expect(byHuman.map((e) => [e.item_id, e.outcome]).sort()).toEqual(
      [
        [skipped.item_id, 'declined'],
        [archiveNow!.item_id, 'acted'],
      ].sort(),
    );
    expect(waiting.counts.by_you).toBe(1);
    // A second delivery of the same event (EventBridge delivers at least once) does nothing.
    expect(await h.resume(deliver(carries[1]!), ctx())).toMatchObject({
      decision_id: archiveNow!.id,
      outcome: null,
    });
    expect(await getRun(store, runId)).toEqual(waiting);

    for (const d of rest) {
      const token = signDecisionToken(LINK_KEY, d.id, new Date(d.expires_at));
      const res = await h.api(
        httpEvent('POST', `/decide/${d.id}`, { body: form({ token, action: 'skip' }), contentType: FORM }),
        ctx(),
      );
      expect(res.statusCode).toBe(200);
    }
    expect((await getRun(store, runId)).dispatch?.node).toBe('resume');

    const resumed = await h.resume(deliver(lastStep('resume')), ctx());
    expect(resumed).toMatchObject({ run_id: runId, status: 'running' });
    const completed = await h.completer(deliver(lastStep('completer')), ctx());
    expect(completed).toMatchObject({ run_id: runId, status: 'completed' });

    const run = await getRun(store, runId);
    expect(run).toMatchObject({ status: 'completed', dispatch: null, snapshot: null });
    expect((await listAudit(store, { runId })).map((e) => e.outcome)).toContain('run_finished');
    // The resume did not act again on the items carried out at once: one entry each.
    const humanItems = (await listAudit(store, { runId }))
      .filter((e) => e.decided_by === 'human')
      .map((e) => e.item_id);
    expect(new Set(humanItems).size).toBe(humanItems.length);
    // The counts as they stood while the run waited, and the skips of the rest (the completer keeps them).
    expect(run.counts).toEqual({ ...waiting.counts, declined: waiting.counts.declined + rest.length });
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 2);
    expect(sns.commandCalls(PublishCommand)[1]!.args[0].input.Subject).toContain('finished');
    // The notice says what the run did, as its counts do (the completer's own process ran no executor).
    expect(sns.commandCalls(PublishCommand)[1]!.args[0].input.Message).toContain(describeCounts(run.counts));
  });

  it('the same POST again, a forged and an expired token: 403, nothing changes', async () => {
    const snapshot = async () => ({
      audit: await listAudit(store),
      decisions: await listDecisions(store),
      tokens: await store.list('tokens'),
      run: await getRun(store, runId),
    });
    const before = await snapshot();
    const puts = entries().length;

    const again = await h.api(firstPost, ctx());
    expect(again.statusCode).toBe(403);
    expect(again.body).toContain('already used');

    const forged = signDecisionToken(randomBytes(32), firstDecision, new Date(Date.now() + 3_600_000));
    const expired = signDecisionToken(LINK_KEY, firstDecision, new Date(Date.now() - 1_000));
    for (const token of [forged, expired]) {
      const opened = await h.api(httpEvent('GET', `/decide/${firstDecision}?token=${token}`), ctx());
      expect(opened.statusCode).toBe(403);
      const posted = await h.api(
        httpEvent('POST', `/decide/${firstDecision}`, {
          body: form({ token, action: 'archive' }),
          contentType: FORM,
        }),
        ctx(),
      );
      expect(posted.statusCode).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
    expect(entries()).toHaveLength(puts);
  });

  it('a step that gave up marks its run failed with the reason; a finished run is left alone', async () => {
    await dovecot.append([
      renderMessage({
        from: 'dana.whitfield@brightpath.example',
        to: 'alex.morgan@northwind.example',
        subject: 'Export broken again',
        body: 'The CSV export fails with a 500 error again.\n',
        date: new Date('2025-03-13T09:00:00Z'),
        messageId: '<again@brightpath.example>',
      }),
    ]);
    const input = { workflow_id: 'inbox-triage', schedule: SCHEDULE };
    const second = startedRun(await h.trigger(input, ctx()));
    expect(second.status).toBe('running');
    const stuck = deliver<'handoff.step', StepDetail>(lastStep('executor'));
    expect(stuck.detail).toEqual({ run_id: second.run_id, node: 'executor', workspace: 'default' });

    const record = failureRecord(stuck, 'Task timed out after 900.00 seconds');
    const published = sns.commandCalls(PublishCommand).length;
    expect(await h.stepFailed(record, ctx())).toMatchObject({ run_id: second.run_id, marked: true });
    const failed = await getRun(store, second.run_id);
    expect(failed).toMatchObject({ status: 'failed', dispatch: null });
    expect(failed.error).toContain('handoff-executor gave up after 3 attempts');
    expect(failed.error).toContain('Task timed out after 900.00 seconds');
    const audit = await listAudit(store, { runId: second.run_id });
    expect(audit.at(-1)).toMatchObject({ outcome: 'run_finished', detail: `failed: ${failed.error}` });
    // The person is told, on the topic: the reason and a link to the run.
    const calls = sns.commandCalls(PublishCommand);
    expect(calls).toHaveLength(published + 1);
    const notice = calls.at(-1)!.args[0].input;
    expect(notice).toMatchObject({ TopicArn: ARNS.topic, Subject: 'Handoff: Inbox triage failed' });
    expect(notice.MessageAttributes?.kind).toEqual({ DataType: 'String', StringValue: 'failed' });
    expect(notice.Message).toContain(`run ${second.run_id} failed: ${failed.error}`);
    expect(notice.Message).toContain(`See the run: ${UI}/runs/${second.run_id}`);

    // Again (a duplicate record), or for the completed run: nothing changes.
    expect(await h.stepFailed(record, ctx())).toMatchObject({ marked: false, why: 'finished' });
    const done = await getRun(store, runId);
    const late = failureRecord(deliver(lastStep('completer')), 'late');
    expect(await h.stepFailed(late, ctx())).toMatchObject({ marked: false, why: 'finished' });
    expect(await getRun(store, runId)).toEqual(done);
    expect(await getRun(store, second.run_id)).toEqual(failed);
    // The executor's late delivery finds the run failed and does nothing.
    expect(await h.executor(stuck, ctx())).toMatchObject({ status: 'failed' });
  });

  it('a signed webhook starts a run in the webhook function; a bad signature changes nothing', async () => {
    const body = JSON.stringify({ reason: 'new mail' });
    const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
    const hook = (sig: string) =>
      httpEvent('POST', '/hooks/inbox-triage', {
        body,
        contentType: 'application/json',
        headers: { 'x-handoff-signature': sig },
      });
    const runsBefore = (await store.list('runs')).length;
    expect((await h.webhook(hook('sha256=' + '0'.repeat(64)), ctx())).statusCode).toBe(401);
    expect(await store.list('runs')).toHaveLength(runsBefore);

    const started = await h.webhook(hook(signature), ctx());
    expect(started.statusCode).toBe(202);
    const { run_id } = JSON.parse(started.body!) as { run_id: string };
    const run = await getRun(store, run_id);
    expect(run.trigger).toEqual({ kind: 'webhook', detail: body });
    // The trigger node ran in the webhook function before it answered (the unread mail above):
    // the executor step is on the bus.
    expect(run).toMatchObject({ status: 'running', dispatch: { node: 'executor' } });
    expect(JSON.parse(lastStep('executor').Detail!)).toEqual({
      run_id,
      node: 'executor',
      workspace: 'default',
    });
  });

  it('removing the workflow over the API deletes its schedule', async () => {
    const removed = await h.api(httpEvent('DELETE', '/api/workflows/inbox-triage'), ctx());
    expect(removed.statusCode).toBe(204);
    const changed = entries('handoff.workflow').at(-1)!;
    expect(JSON.parse(changed.Detail!)).toEqual({
      workflow_id: 'inbox-triage',
      change: 'removed',
      workspace: 'default',
    });
    expect(await h.scheduleSync(deliver(changed), ctx())).toEqual({
      workflow_id: 'inbox-triage',
      schedule: 'deleted',
    });
    expect(scheduler).toHaveReceivedCommandWith(DeleteScheduleCommand, {
      Name: 'inbox-triage',
      GroupName: GROUP,
    });
    expect(scheduler).not.toHaveReceivedCommand(UpdateScheduleCommand);
    // The secrets were read once per container, however many requests.
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: ARNS.linkKey });
    expect(
      secrets.commandCalls(GetSecretValueCommand).filter((c) => c.args[0].input.SecretId === ARNS.linkKey)
        .length,
    ).toBe(2); // the executor signs, the api checks
  });

  it("works in the workspace X-Handoff-Workspace names: the API, the workflow event, the schedule's name and input", async () => {
    const platform = new DynamoDbStore(createDocumentClient(client), process.env.HANDOFF_TABLE!, {
      workspace: '_platform',
    });
    await new WorkspaceRegistry(platform).add('team-b');
    const inB = { 'x-handoff-workspace': 'team-b' };
    const saved = await h.api(
      httpEvent('PUT', '/api/workflows/b-inbox', {
        body: scheduled(imapYaml).replace(/^id: .*$/m, 'id: b-inbox'),
        contentType: 'application/yaml',
        headers: inB,
      }),
      ctx(),
    );
    expect(saved.statusCode).toBe(201);
    const changed = entries('handoff.workflow').at(-1)!;
    expect(JSON.parse(changed.Detail!)).toEqual({
      workflow_id: 'b-inbox',
      change: 'saved',
      workspace: 'team-b',
    });
    expect(await h.scheduleSync(deliver(changed), ctx())).toEqual({
      workflow_id: 'b-inbox',
      schedule: 'created',
    });
    const request = scheduler.commandCalls(CreateScheduleCommand).at(-1)!.args[0].input;
    expect(request.Name).toBe('team-b.b-inbox');
    expect(JSON.parse(request.Target!.Input!)).toMatchObject({ workflow_id: 'b-inbox', workspace: 'team-b' });

    const listed = async (headers: Record<string, string>) =>
      (
        JSON.parse((await h.api(httpEvent('GET', '/api/workflows', { headers }), ctx())).body!) as {
          id: string;
        }[]
      ).map((w) => w.id);
    expect(await listed(inB)).toEqual(['b-inbox']);
    expect(await listed({})).not.toContain('b-inbox');
    const unknown = await h.api(
      httpEvent('GET', '/api/workflows', { headers: { 'x-handoff-workspace': 'nope' } }),
      ctx(),
    );
    expect(unknown.statusCode).toBe(404);
    expect(
      await new DynamoDbStore(createDocumentClient(client), process.env.HANDOFF_TABLE!).get(
        'workflows',
        'b-inbox',
      ),
    ).toBeUndefined();
  });
});

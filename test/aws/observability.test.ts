/**
 * What a Lambda user sees in CloudWatch: the handlers, called directly as AWS would call
 * them, write structured JSON log lines keyed by run and workflow, and embedded-metric-
 * format blobs with the run metrics. DynamoDB is dynalite; EventBridge, SNS and Secrets
 * Manager are mocked at the command level.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startedRun } from '../../shared/aws/lambda-handlers.ts';
import { idsOf } from '../../shared/aws/observability.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import type { Dovecot } from '../support/dovecot.ts';
import { startDynalite } from '../support/dynalite.ts';
import { demoInboxOnImap, deployedCredentials, KMS_KEY, mockKms } from './imap-deployment.ts';
import { ARNS, deliver, deploymentEnv, httpEvent, lambdaContext } from './support.ts';

const eventBridge = mockClient(EventBridgeClient);
const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);
mockKms(); // the mailbox password is sealed with KMS, as on a deployment

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let client: DynamoDBClient;
let dir: string;
let table: string;
let dovecot: Dovecot;
let imapYaml: string;
const deployedStore = () => new DynamoDbStore(createDocumentClient(client), table);

/** Runs `fn`, returning every JSON object it wrote to stdout (one per line). */
async function stdoutJson(fn: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

type Emf = {
  _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
};
const metricNames = (lines: Record<string, unknown>[]) =>
  lines
    .filter((l): l is Record<string, unknown> & Emf => '_aws' in l)
    .flatMap((l) =>
      l._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => `${m.Namespace}/${x.Name}`)),
    );

beforeAll(async () => {
  dynalite = await startDynalite();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-observed-'));
  await createDemoMaildir(path.join(dir, 'Maildir'));
  table = `handoff-${Date.now()}`;
  Object.assign(process.env, deploymentEnv(table, dynalite.endpoint, path.join(dir, 'state')), {
    HANDOFF_KMS_KEY_ID: KMS_KEY,
  });
  client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: dynalite.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTable(client, table);
  ({ dovecot, yaml: imapYaml } = await demoInboxOnImap(deployedCredentials(deployedStore())));
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.linkKey })
    .resolves({ SecretString: randomBytes(32).toString('base64') });
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.apiKey })
    .resolves({ SecretString: 'api-key-0123456789' });
});

afterAll(async () => {
  client?.destroy();
  await dynalite?.stop();
  await dovecot?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('observability on Lambda', () => {
  it('a scheduled run logs JSON lines keyed by run and workflow, and EMF metrics for what it did', async () => {
    const api = (await import('../../lambdas/api.ts')).handler;
    const trigger = (await import('../../lambdas/trigger.ts')).handler;
    const executor = (await import('../../lambdas/executor.ts')).handler;
    const yaml = demoWorkflowYaml(path.join(dir, 'Maildir'));
    // The API refuses a Maildir workflow (a Lambda has no local folders); the same on IMAP is saved.
    const refused = await api(
      httpEvent('PUT', '/api/workflows/inbox-triage', { body: yaml, contentType: 'application/yaml' }),
      lambdaContext(),
    );
    expect(refused.statusCode).toBe(400);
    const saved = await api(
      httpEvent('PUT', '/api/workflows/inbox-triage', { body: imapYaml, contentType: 'application/yaml' }),
      lambdaContext(),
    );
    expect(saved.statusCode).toBe(201);

    const input = {
      workflow_id: 'inbox-triage',
      schedule: 'cron(0 8 * * ? *)',
      scheduled_time: '2026-12-01T08:00:00Z',
    };
    let runId = '';
    const triggerLines = await stdoutJson(async () => {
      runId = startedRun(await trigger(input, lambdaContext('handoff-trigger'))).run_id;
    });
    const step = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((c) => c.args[0].input.Entries ?? [])
      .filter((e) => e.DetailType === 'handoff.step')
      .at(-1)!;
    const executorLines = await stdoutJson(async () => {
      await executor(deliver(step), lambdaContext('handoff-executor'));
    });

    // Structured log lines: Powertools' shape, with the run's ids as keys.
    const started = triggerLines.find((l) => l.message === `run ${runId} started by its schedule: running`);
    expect(started).toMatchObject({
      level: 'INFO',
      service: 'handoff',
      run_id: runId,
      workflow_id: 'inbox-triage',
      function_name: 'handoff-trigger',
      handler: 'trigger',
    });
    const stepLine = executorLines.find((l) => l.level === 'INFO' && typeof l.message === 'string');
    expect(stepLine).toMatchObject({
      run_id: runId,
      workflow_id: 'inbox-triage',
      message: `executor step of run ${runId}: waiting`,
    });

    // EMF: the counts where they changed, and the per-item latency.
    expect(metricNames(triggerLines)).toContain('Handoff/RunsStarted');
    expect(metricNames(executorLines)).toEqual(
      expect.arrayContaining(['Handoff/ItemsActed', 'Handoff/ItemsAsked', 'Handoff/ItemLatency']),
    );
    const emf = executorLines.find((l) => '_aws' in l && 'ItemsAsked' in l)!;
    expect(emf.ItemsAsked).toBeGreaterThan(0);
    expect(emf.service).toBe('handoff');
  }, 60_000);

  it('finds the ids an event is about: a step, a failure record, a decision page', () => {
    expect(idsOf({ detail: { run_id: 'run_1', node: 'executor' } })).toEqual({ run_id: 'run_1' });
    expect(idsOf({ requestPayload: { detail: { run_id: 'run_2' } } })).toEqual({ run_id: 'run_2' });
    expect(idsOf({ rawPath: '/decide/dec_3' })).toEqual({ decision_id: 'dec_3' });
    expect(idsOf({ rawPath: '/hooks/inbox%ZZ' })).toEqual({});
    expect(idsOf('not an event')).toEqual({});
  });
});

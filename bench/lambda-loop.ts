/**
 * One scheduled run through the Lambda handlers, in this process, as AWS would run it: the
 * mail on a real IMAP server (a local Dovecot, commands counted), DynamoDB real (dynalite,
 * every request counted with its consumed capacity), EventBridge, SNS, Scheduler, Secrets
 * Manager and KMS mocked at the command level. Every handler call is
 * timed and attributed to its function. Used by bench/lambda.ts (one child process per size).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.ts';
import { startDynalite } from '../test/support/dynalite-server.ts';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { dynamoClient } from '../shared/aws/dynamo-client.ts';
import { SCHEDULED_TIME } from '../shared/aws/schedule-sync.ts';
import { kmsOnlyCredentials } from '../shared/credentials/open-credentials.ts';
import { signDecisionToken } from '../shared/links/decision-token.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../shared/store/dynamodb-store.ts';
import { generateInbox } from './generate-mail.ts';
import { startImapSource } from './imap-bench.ts';

export type FunctionName =
  'trigger' | 'executor' | 'resume' | 'completer' | 'api' | 'schedule-sync' | 'agent';

export interface FunctionUse {
  invocations: number;
  ms: number;
}

export interface LoopResult {
  items: number;
  decisions: number;
  status: string;
  functions: Partial<Record<FunctionName, FunctionUse>>;
  dynamodb: { reads: number; writes: number; rru: number; wru: number; failed_conditions: number };
  dynamodb_by_function: Partial<Record<FunctionName, { reads: number; writes: number }>>;
  /** Requests by `function command` (e.g. `api QueryCommand`). */
  dynamodb_commands: Record<string, number>;
  eventbridge_events: number;
  sns_publishes: number;
  scheduler_invocations: number;
  api_requests: number;
  /** KMS Decrypt calls: the IMAP password opened by each function that connects. */
  kms_decrypts: number;
  /** IMAP commands sent to the mail server (each one round trip). */
  imap_round_trips: number;
}

const READS = new Set([
  'GetCommand',
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);
const WRITES = new Set([
  'PutCommand',
  'PutItemCommand',
  'UpdateCommand',
  'UpdateItemCommand',
  'DeleteCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);
/** The keys a request names (for HANDOFF_BENCH_TRACE=1: one line per counted request on stderr). */
function requestKeys(input: unknown): string {
  const text = JSON.stringify(input, (name, value: unknown) =>
    name === 'Item' || name === 'ReturnConsumedCapacity' ? undefined : value,
  );
  return (
    text.match(/"(?:pk|sk|S|:[a-z]+)":"[^"]*"|"KeyConditionExpression":"[^"]*"|"IndexName":"[^"]*"/g) ?? []
  ).join(' ');
}

const ARN = (service: string, rest: string) => `arn:aws:${service}:us-east-1:123456789012:${rest}`;
const SCHEDULE = 'cron(0 8 * * ? *)';

/**
 * The DynamoDB the run uses: dynalite (no transactions: a commit falls back to one write per
 * request), or with HANDOFF_BENCH_DYNAMODB=local the real DynamoDB Local (transactions; needs
 * Java, see test/support/dynamodb-local.ts).
 */
async function startDynamoDb(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  return process.env.HANDOFF_BENCH_DYNAMODB === 'local' ? startDynamoDbLocal() : startDynalite();
}

const context = (): Context =>
  ({ functionName: 'bench', awsRequestId: 'r', getRemainingTimeInMillis: () => 900_000 }) as Context;

/**
 * An API Gateway event for `target`. `/admin/api/*` comes as API Gateway sends an IAM caller it
 * admitted (the administrator who saves the workflow): who signed, in the request context.
 */
function http(method: string, target: string, body?: string): APIGatewayProxyEventV2 {
  const url = new URL(target, 'https://handoff.example.com');
  const iam = url.pathname.startsWith('/admin/api/')
    ? {
        authorizer: {
          iam: {
            accessKey: 'AKIABENCH',
            accountId: '123456789012',
            userArn: 'arn:aws:iam::123456789012:user/ops',
          },
        },
      }
    : {};
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: { host: url.host, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    requestContext: { domainName: url.host, http: { method, path: url.pathname }, ...iam },
    isBase64Encoded: body !== undefined,
    ...(body !== undefined ? { body: Buffer.from(body).toString('base64') } : {}),
  } as unknown as APIGatewayProxyEventV2; // only what the app reads
}

/** Runs one scheduled run over an `n`-message IMAP mailbox and answers every question through the API. */
export async function runLoop(n: number): Promise<LoopResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-lambda-'));
  const { endpoint, stop } = await startDynamoDb();
  const linkKey = randomBytes(32);
  Object.assign(process.env, {
    HANDOFF_TABLE: 'handoff-bench',
    USE_DYNAMODB: 'true',
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    EVENT_BUS_NAME: 'handoff',
    NOTIFY_TOPIC_ARN: ARN('sns', 'handoff'),
    LINK_KEY_SECRET_ARN: ARN('secretsmanager', 'secret:link'),
    API_KEY_SECRET_ARN: ARN('secretsmanager', 'secret:api'),
    UI_BASE_URL: 'https://handoff.example.com',
    SCHEDULE_GROUP_NAME: 'handoff',
    SCHEDULER_ROLE_ARN: ARN('iam', 'role/scheduler'),
    TRIGGER_FUNCTION_ARN: ARN('lambda', 'function:trigger'),
    HANDOFF_SPEECH_PROVIDER: 'aws',
    HANDOFF_STATE_DIR: path.join(dir, 'state'),
    HANDOFF_MODEL_PROVIDER: 'local',
    HANDOFF_KMS_KEY_ID: ARN('kms', 'key/bench'),
  });
  const admin = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  await ensureTable(admin, 'handoff-bench');
  const store = new DynamoDbStore(createDocumentClient(admin), 'handoff-bench');

  const eventBridge = mockClient(EventBridgeClient).on(PutEventsCommand).resolves({ FailedEntryCount: 0 });
  const sns = mockClient(SNSClient).on(PublishCommand).resolves({ MessageId: 'm' });
  const scheduler = mockClient(SchedulerClient).on(CreateScheduleCommand).resolves({});
  mockClient(SecretsManagerClient)
    .on(GetSecretValueCommand)
    .resolves({ SecretString: linkKey.toString('base64') });
  // KMS "seals" by copying: the bench counts its calls, it does not test the cipher.
  const kms = mockClient(KMSClient);
  kms.on(EncryptCommand).callsFake((input: { Plaintext: Uint8Array; KeyId: string }) => ({
    CiphertextBlob: input.Plaintext,
    KeyId: input.KeyId,
  }));
  kms
    .on(DecryptCommand)
    .callsFake((input: { CiphertextBlob: Uint8Array }) => ({ Plaintext: input.CiphertextBlob }));
  const credentials = kmsOnlyCredentials('us-east-1', store);

  // Count every request the handlers' DynamoDB client makes, with its consumed capacity.
  let current: FunctionName = 'api';
  const result: LoopResult = {
    items: n,
    decisions: 0,
    status: '',
    functions: {},
    dynamodb: { reads: 0, writes: 0, rru: 0, wru: 0, failed_conditions: 0 },
    dynamodb_by_function: {},
    dynamodb_commands: {},
    eventbridge_events: 0,
    sns_publishes: 0,
    scheduler_invocations: 1,
    api_requests: 0,
    kms_decrypts: 0,
    imap_round_trips: 0,
  };
  let counting = false;
  dynamoClient({ AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: endpoint }).middlewareStack.add(
    (next, ctx) => async (args) => {
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const command = ctx.commandName ?? '';
      const kind = READS.has(command) ? 'reads' : WRITES.has(command) ? 'writes' : null;
      const tally = (units: number) => {
        if (!counting || !kind) return;
        result.dynamodb[kind] += 1;
        result.dynamodb[kind === 'reads' ? 'rru' : 'wru'] += units;
        const mine = (result.dynamodb_by_function[current] ??= { reads: 0, writes: 0 });
        mine[kind] += 1;
        const key = `${current} ${command}`;
        result.dynamodb_commands[key] = (result.dynamodb_commands[key] ?? 0) + 1;
        if (process.env.HANDOFF_BENCH_TRACE) process.stderr.write(`${key} ${requestKeys(args.input)}\n`);
      };
      try {
        const out = await next(args);
        const used = (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
        tally(used?.CapacityUnits ?? 1);
        return out;
      } catch (error) {
        // A failed conditional write still costs at least one write unit on DynamoDB.
        if (counting && (error as Error).name === 'ConditionalCheckFailedException')
          result.dynamodb.failed_conditions += 1;
        tally(1);
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCountCapacity' },
  );

  const load = async <T>(name: string) => (await import(`../lambdas/${name}.ts`)) as { handler: T };
  type Call = (event: unknown, ctx: Context) => Promise<unknown>;
  const handlers = {
    trigger: (await load<Call>('trigger')).handler,
    executor: (await load<Call>('executor')).handler,
    resume: (await load<Call>('resume')).handler,
    completer: (await load<Call>('completer')).handler,
    api: (await load<Call>('api')).handler,
    'schedule-sync': (await load<Call>('schedule-sync')).handler,
    agent: (await load<Call>('agent')).handler,
  };
  const invoke = async (fn: FunctionName, event: unknown) => {
    current = fn;
    const started = performance.now();
    const out = await handlers[fn](event, context());
    if (counting) {
      const use = (result.functions[fn] ??= { invocations: 0, ms: 0 });
      use.invocations += 1;
      use.ms += performance.now() - started;
      if (fn === 'api') result.api_requests += 1;
    }
    return out as { statusCode?: number; body?: string; status?: string };
  };
  const entries = (): PutEventsRequestEntry[] =>
    eventBridge.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries ?? []);
  const deliver = (node: string) => {
    const entry = entries()
      .filter((e) => e.Detail?.includes(`"node":"${node}"`))
      .at(-1);
    if (!entry) throw new Error(`no ${node} step was dispatched`);
    return {
      'detail-type': entry.DetailType,
      source: entry.Source,
      detail: JSON.parse(entry.Detail!) as unknown,
    };
  };

  /** Saves a scheduled workflow over `count` messages (not counted), then runs it once, answering every question. */
  const scheduledRun = async (id: string, count: number, counted: boolean) => {
    const imap = await startImapSource(generateInbox(count).messages);
    try {
      await imap.storeCredential(credentials);
      return await runOver(id, imap.source, counted, () => imap.counter.count.total);
    } finally {
      await imap.stop();
    }
  };
  const runOver = async (id: string, source: object, counted: boolean, imapCommands: () => number) => {
    const yaml = demoWorkflowYaml('/unused')
      .replace(/^source: .*$/m, `source: ${JSON.stringify(source)}`)
      .replace('id: inbox-triage', `id: ${id}`)
      .replace('trigger: { manual: true }', `trigger: { schedule: "${SCHEDULE}" }`);
    const put = http('PUT', `/admin/api/workflows/${id}`);
    const headers = { host: 'handoff.example.com', 'content-type': 'application/yaml' };
    const saved = await handlers.api({ ...put, body: yaml, isBase64Encoded: false, headers }, context());
    if ((saved as { statusCode: number }).statusCode !== 201)
      throw new Error(`could not save workflow ${id}`);
    const changed = { 'detail-type': 'handoff.workflow', detail: { workflow_id: id, change: 'saved' } };
    await handlers['schedule-sync'](changed, context());
    // As Scheduler sends it: its context attribute replaced by the time the schedule fired.
    const input = JSON.parse(
      scheduler
        .commandCalls(CreateScheduleCommand)
        .at(-1)!
        .args[0].input.Target!.Input!.replace(SCHEDULED_TIME, new Date().toISOString()),
    ) as object;

    const before = {
      events: entries().length,
      publishes: sns.commandCalls(PublishCommand).length,
      decrypts: kms.commandCalls(DecryptCommand).length,
      imap: imapCommands(),
    };
    counting = counted;
    await invoke('trigger', input);
    let decisions = 0;
    const paused = await invoke('executor', deliver('executor'));
    if (paused.status === 'waiting') {
      const pending = await listPending(store);
      decisions = pending.length;
      const link = /https:\/\/\S+/.exec(
        String(sns.commandCalls(PublishCommand).at(-1)?.args[0].input.Message),
      )?.[0];
      const linked = link ? new URL(link) : null;
      for (const d of pending) {
        // The notice's link answers its decision; the others get links signed with the same key.
        const token =
          linked?.pathname.endsWith(`/${d.id}`) === true
            ? linked.searchParams.get('token')!
            : signDecisionToken(linkKey, d.id, new Date(d.expires_at));
        await invoke('api', http('GET', `/decide/${d.id}?token=${token}`));
        const action = d.options.includes(d.suggested_action) ? d.suggested_action : 'skip';
        const posted = await invoke(
          'api',
          http('POST', `/decide/${d.id}`, new URLSearchParams({ token, action }).toString()),
        );
        if (posted.statusCode !== 200) throw new Error(`answering ${d.id} gave ${posted.statusCode}`);
      }
      await invoke('resume', deliver('resume'));
    }
    const done = await invoke('completer', deliver('completer'));
    // Each answer is learned from in the agent function (its handoff.learn event), as on AWS.
    for (const e of entries().slice(before.events))
      if (e.DetailType === 'handoff.learn')
        await invoke('agent', {
          'detail-type': e.DetailType,
          source: e.Source,
          detail: JSON.parse(e.Detail!),
        });
    counting = false;
    return {
      decisions,
      status: done.status ?? 'unknown',
      events: entries().length - before.events,
      publishes: sns.commandCalls(PublishCommand).length - before.publishes,
      decrypts: kms.commandCalls(DecryptCommand).length - before.decrypts,
      imap: imapCommands() - before.imap,
    };
  };

  try {
    // A first run warms every handler (lazy imports, first connections) and is not counted.
    await scheduledRun('warm-up', 3, false);
    const measured = await scheduledRun('inbox-triage', n, true);
    result.decisions = measured.decisions;
    result.status = measured.status;
    result.eventbridge_events = measured.events;
    result.sns_publishes = measured.publishes;
    result.kms_decrypts = measured.decrypts;
    result.imap_round_trips = measured.imap;
    return result;
  } finally {
    admin.destroy();
    await stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The AWS network as the functions see it (AWS_ENDPOINT_URL): one local HTTP server that
 * names the caller by its SigV4 access key id, authorises every call against that caller's
 * IAM policy from the template (iam.ts), refuses what the policy does not allow as AWS would
 * (AccessDenied, naming the action and resource), and otherwise answers: DynamoDB through to
 * DynamoDB Local, and recorded stand-ins for SNS, EventBridge, Scheduler, KMS, Secrets
 * Manager and Bedrock (the offline model behind Bedrock's wire format).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createH2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { converseStream } from './bedrock-stub.ts';
import { allows, dynamoCalls, type Call } from './iam.ts';
import { ACCOUNT, REGION, type Statement } from './template.ts';

/** Who may call: a function's role, or the operator at the terminal (anything). */
export interface Principal {
  name: string;
  statements: Statement[];
}

export interface Refusal {
  principal: string;
  action: string;
  resource: string;
}
export interface Published {
  by: string;
  topic: string;
  subject: string;
  message: string;
}
export interface PutEvent {
  /** EventBridge's id for the event, given when it is first routed (kept on a redelivery). */
  id?: string;
  by: string;
  bus: string;
  source: string;
  detailType: string;
  detail: Record<string, unknown>;
}
export interface ScheduleRecord {
  name: string;
  group: string;
  expression: string;
  targetArn: string;
  roleArn: string;
  input: string;
  state: string;
}

/** One DynamoDB request, by whom. */
export interface DynamoRequest {
  by: string;
  operation: string;
}

type Handler = (p: Principal, req: IncomingMessage, body: Buffer) => Promise<Answer>;
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

const json = (value: unknown, status = 200): Answer => ({
  status,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify(value),
});

class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/${refusal.principal}/${refusal.principal} is not authorized to perform: ${refusal.action} on resource: ${refusal.resource} because no identity-based policy allows the ${refusal.action} action`,
    );
  }
}

export class AwsGateway {
  readonly refusals: Refusal[] = [];
  readonly published: Published[] = [];
  readonly events: PutEvent[] = [];
  readonly schedules = new Map<string, ScheduleRecord>();
  /** Each Scheduler request, in order: who sent it, the action and the schedule's name. */
  readonly schedulerCalls: { by: string; action: string; name: string }[] = [];
  readonly dynamo: DynamoRequest[] = [];
  readonly bedrockCalls: { by: string; modelId: string }[] = [];
  readonly kmsCalls: { by: string; action: string }[] = [];
  /** Secret values by ARN. */
  readonly secrets = new Map<string, string>();
  /** The KMS key of each encrypted topic (publishing needs its data key). */
  readonly topicKeys = new Map<string, string>();
  private readonly principals = new Map<string, Principal>();
  private server: Server | undefined;
  private h2: Http2Server | undefined;
  /**
   * Services that fail every call on purpose, for failure journeys: `sns`, `events` for every
   * caller, or `<caller>:<service>` (`completer:dynamodb`) for one function's calls only.
   */
  readonly outages = new Set<string>();
  /** Calls answered with a service's own error instead (keyed as outages): `{status, type, message}`. */
  readonly errors = new Map<string, { status: number; type: string; message: string }>();

  constructor(private readonly dynamoEndpoint: string) {}

  /** A new deployment: nothing recorded, refused, scheduled or out of order yet; the principals stay until replaced. */
  reset(): void {
    for (const list of [
      this.refusals,
      this.published,
      this.events,
      this.dynamo,
      this.bedrockCalls,
      this.kmsCalls,
    ])
      list.length = 0;
    this.schedules.clear();
    this.secrets.clear();
    this.topicKeys.clear();
    this.outages.clear();
    this.errors.clear();
  }

  /** Registers a caller: its access key id is how its calls are told apart. */
  addPrincipal(accessKeyId: string, principal: Principal): void {
    this.principals.set(accessKeyId, principal);
  }

  /** Starts the endpoint (HTTP/1.1) and, for the clients that speak HTTP/2 (Bedrock's streams), an h2c one. */
  async start(): Promise<{ endpoint: string; http2: string }> {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.h2 = createH2Server((req, res) => void this.serve(req as never, res as never));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => this.h2!.listen(0, '127.0.0.1', resolve));
    return {
      endpoint: `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`,
      http2: `http://127.0.0.1:${(this.h2.address() as AddressInfo).port}`,
    };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (this.h2 ? this.h2.close(() => resolve()) : resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const auth = /Credential=([^/]+)\/[^/]+\/[^/]+\/([^/]+)\//.exec(req.headers.authorization ?? '');
    const principal = auth ? this.principals.get(auth[1]!) : undefined;
    const service = auth?.[2] ?? '';
    let answer: Answer;
    if (!principal)
      answer = json(
        {
          __type: 'UnrecognizedClientException',
          message: 'The security token included in the request is invalid.',
        },
        400,
      );
    else
      try {
        const handler = this.handlers[service];
        if (!handler) throw new Error(`no stand-in for ${service}`);
        if (this.outages.has(service) || this.outages.has(`${principal.name}:${service}`))
          throw Object.assign(new Error(`${service} is down (a test outage)`), { outage: true });
        const error = this.errors.get(service) ?? this.errors.get(`${principal.name}:${service}`);
        answer = error
          ? {
              status: error.status,
              headers: { 'content-type': 'application/json', 'x-amzn-errortype': error.type },
              body: JSON.stringify({ __type: error.type, message: error.message }),
            }
          : await handler(principal, req, body);
      } catch (error) {
        if (error instanceof Refused) {
          this.refusals.push(error.refusal);
          answer = this.denied(service, error.message);
        } else {
          const message = error instanceof Error ? error.message : String(error);
          answer = {
            status: 500,
            headers: { 'x-amzn-errortype': 'InternalFailure' },
            body: JSON.stringify({ __type: 'InternalFailure', message }),
          };
        }
      }
    res.writeHead(answer.status, { 'x-amzn-requestid': randomUUID(), ...answer.headers });
    res.end(answer.body);
  }

  private denied(service: string, message: string): Answer {
    if (service === 'sns')
      return {
        status: 403,
        headers: { 'content-type': 'text/xml' },
        body: `<ErrorResponse><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>${message}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      };
    return {
      status: 400,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'AccessDeniedException' },
      body: JSON.stringify({ __type: 'AccessDeniedException', message, Message: message }),
    };
  }

  /** Throws Refused unless `p`'s policy allows every call. */
  private authorise(p: Principal, ...calls: Call[]): void {
    for (const call of calls)
      if (!allows(p.statements, call, { 'aws:RequestedRegion': REGION }))
        throw new Refused({ principal: p.name, ...call });
  }

  private readonly handlers: Record<string, Handler> = {
    dynamodb: async (p, req, body) => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      this.authorise(p, ...dynamoCalls(operation, input));
      this.dynamo.push({ by: p.name, operation });
      const res = await fetch(this.dynamoEndpoint, {
        method: 'POST',
        headers: {
          'content-type': String(req.headers['content-type']),
          'x-amz-target': String(req.headers['x-amz-target']),
          authorization: String(req.headers.authorization),
          'x-amz-date': String(req.headers['x-amz-date'] ?? ''),
        },
        body,
      });
      return {
        status: res.status,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: Buffer.from(await res.arrayBuffer()),
      };
    },
    sns: async (p, _req, body) => {
      const form = new URLSearchParams(body.toString('utf8'));
      if (form.get('Action') !== 'Publish') throw new Error(`SNS ${form.get('Action')} has no stand-in`);
      const topic = form.get('TopicArn') ?? '';
      // Publishing to an encrypted topic uses its key on the publisher's behalf.
      const key = this.topicKeys.get(topic);
      this.authorise(
        p,
        { action: 'sns:Publish', resource: topic },
        ...(key ? [{ action: 'kms:GenerateDataKey', resource: key }] : []),
      );
      this.published.push({
        by: p.name,
        topic,
        subject: form.get('Subject') ?? '',
        message: form.get('Message') ?? '',
      });
      return {
        status: 200,
        headers: { 'content-type': 'text/xml' },
        body: `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></PublishResponse>`,
      };
    },
    events: async (p, _req, body) => {
      const input = JSON.parse(body.toString('utf8')) as { Entries: Record<string, string>[] };
      const busArn = (name: string) =>
        name.startsWith('arn:') ? name : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`;
      this.authorise(
        p,
        ...input.Entries.map((e) => ({
          action: 'events:PutEvents',
          resource: busArn(e.EventBusName ?? 'default'),
        })),
      );
      for (const e of input.Entries)
        this.events.push({
          by: p.name,
          bus: e.EventBusName ?? 'default',
          source: e.Source ?? '',
          detailType: e.DetailType ?? '',
          detail: JSON.parse(e.Detail ?? '{}') as Record<string, unknown>,
        });
      return json({ FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: randomUUID() })) });
    },
    scheduler: async (p, req, body) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const name = decodeURIComponent(url.pathname.replace(/^\/schedules\//, ''));
      const input = body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
      const group = String(input.GroupName ?? url.searchParams.get('groupName') ?? 'default');
      const resource = `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${name}`;
      const action =
        { POST: 'CreateSchedule', PUT: 'UpdateSchedule', GET: 'GetSchedule', DELETE: 'DeleteSchedule' }[
          req.method ?? ''
        ] ?? '';
      const target = input.Target as { Arn: string; RoleArn: string; Input?: string } | undefined;
      this.authorise(
        p,
        { action: `scheduler:${action}`, resource },
        ...(target ? [{ action: 'iam:PassRole', resource: target.RoleArn }] : []),
      );
      this.schedulerCalls.push({ by: p.name, action, name });
      const key = `${group}/${name}`;
      const rest = (status: number, value: unknown, error?: string): Answer => ({
        status,
        headers: { 'content-type': 'application/json', ...(error ? { 'x-amzn-errortype': error } : {}) },
        body: JSON.stringify(value),
      });
      if (action === 'DeleteSchedule') {
        if (!this.schedules.delete(key))
          return rest(404, { Message: `Schedule ${name} does not exist.` }, 'ResourceNotFoundException');
        return rest(200, {});
      }
      if (action === 'CreateSchedule' && this.schedules.has(key))
        return rest(409, { Message: `Schedule ${name} already exists.` }, 'ConflictException');
      if (action === 'CreateSchedule' || action === 'UpdateSchedule') {
        this.schedules.set(key, {
          name,
          group,
          expression: String(input.ScheduleExpression),
          targetArn: target!.Arn,
          roleArn: target!.RoleArn,
          input: target!.Input ?? '{}',
          state: String(input.State ?? 'ENABLED'),
        });
        return rest(200, { ScheduleArn: resource });
      }
      throw new Error(`Scheduler ${req.method} has no stand-in`);
    },
    kms: async (p, req, body) => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(body.toString('utf8')) as {
        KeyId?: string;
        Plaintext?: string;
        CiphertextBlob?: string;
        EncryptionContext?: Record<string, string>;
      };
      const keyArn = (id: string) =>
        id.startsWith('arn:') ? id : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${id}`;
      if (operation === 'Encrypt') {
        const key = keyArn(input.KeyId ?? '');
        this.authorise(p, { action: 'kms:Encrypt', resource: key });
        this.kmsCalls.push({ by: p.name, action: 'Encrypt' });
        const sealed = { key, context: input.EncryptionContext ?? {}, plaintext: input.Plaintext };
        return json({ KeyId: key, CiphertextBlob: Buffer.from(JSON.stringify(sealed)).toString('base64') });
      }
      if (operation === 'Decrypt') {
        const sealed = JSON.parse(Buffer.from(input.CiphertextBlob ?? '', 'base64').toString('utf8')) as {
          key: string;
          context: Record<string, string>;
          plaintext: string;
        };
        this.authorise(p, { action: 'kms:Decrypt', resource: sealed.key });
        this.kmsCalls.push({ by: p.name, action: 'Decrypt' });
        if (JSON.stringify(sealed.context) !== JSON.stringify(input.EncryptionContext ?? {}))
          return json({ __type: 'InvalidCiphertextException', message: 'context mismatch' }, 400);
        return json({ KeyId: sealed.key, Plaintext: sealed.plaintext });
      }
      throw new Error(`KMS ${operation} has no stand-in`);
    },
    secretsmanager: async (p, req, body) => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(body.toString('utf8')) as { SecretId: string };
      if (operation !== 'GetSecretValue') throw new Error(`Secrets Manager ${operation} has no stand-in`);
      this.authorise(p, { action: 'secretsmanager:GetSecretValue', resource: input.SecretId });
      const value = this.secrets.get(input.SecretId);
      if (value === undefined)
        return json(
          {
            __type: 'ResourceNotFoundException',
            message: 'Secrets Manager can’t find the specified secret.',
          },
          400,
        );
      return json({
        ARN: input.SecretId,
        Name: input.SecretId.split(':').pop(),
        SecretString: value,
        VersionId: 'v1',
      });
    },
    bedrock: async (p, req, body) => {
      const match = /^\/model\/([^/]+)\/(converse-stream|converse)$/.exec(req.url ?? '');
      if (!match) throw new Error(`Bedrock ${req.url} has no stand-in`);
      const modelId = decodeURIComponent(match[1]!);
      // A cross-region inference profile (us., eu., global.) or a foundation model.
      const resource = /^(us|eu|apac|global)\./.test(modelId)
        ? `arn:aws:bedrock:${REGION}:${ACCOUNT}:inference-profile/${modelId}`
        : `arn:aws:bedrock:${REGION}::foundation-model/${modelId}`;
      const streaming = match[2] === 'converse-stream';
      this.authorise(p, {
        action: streaming ? 'bedrock:InvokeModelWithResponseStream' : 'bedrock:InvokeModel',
        resource,
      });
      this.bedrockCalls.push({ by: p.name, modelId });
      if (!streaming) throw new Error('only ConverseStream is stood in for');
      return {
        status: 200,
        headers: { 'content-type': 'application/vnd.amazon.eventstream' },
        body: await converseStream(JSON.parse(body.toString('utf8'))),
      };
    },
  };
}

/**
 * A deployment of the synthesized template on this machine: the stack synthesised with its
 * real bundles, each function run from its asset with only its template environment, the AWS
 * network stood in for by the gateway (IAM enforced from the template), DynamoDB Local for
 * the table, and API Gateway, EventBridge, Scheduler and Lambda's async invocation by Cloud.
 */
import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { PROJECT_ROOT } from '../../../lib/functions.ts';
import type { HandoffStackProps } from '../../../lib/handoff-stack.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../../shared/store/dynamodb-store.ts';
import { buildStack, type Built } from '../../infra/fixture.ts';
import { Cloud } from './cloud.ts';
import { AwsGateway, type Principal } from './gateway.ts';
import { accessKeyOf } from './runtime.ts';
import { Deployment, REGION, type Statement, type Template } from './template.ts';

const run = promisify(execFile);

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data) =>
  typeof d === 'string'
    ? d
    : ArrayBuffer.isView(d)
      ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
      : new Uint8Array(d);
/** SHA-256 (HMAC when given a secret) as SignatureV4 wants it (the README's snippet, the same). */
class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

/** The operator at the terminal: their own credentials, allowed everything (the README's commands). */
export const OPERATOR = { accessKeyId: 'AKIAOPERATOR00000000', secretAccessKey: 'operator-secret' };
const EVERYTHING: Statement[] = [{ Effect: 'Allow', Action: ['*'], Resource: ['*'] }];

export interface Harness {
  built: Built;
  deployment: Deployment;
  gateway: AwsGateway;
  cloud: Cloud;
  apiUrl: string;
  endpoint: string;
  /** The stack's outputs, resolved. */
  outputs: Record<string, string>;
  /** The operator's store of the deployment's table (to read what the functions wrote). */
  store: DynamoDbStore;
  /** A SigV4-signed request to the API as the operator (IAM auth). */
  api(method: string, pathAndQuery: string, body?: string, contentType?: string): Promise<Response>;
  /** Runs the project's CLI as the operator does against the deployment (README's commands). */
  cli(
    args: string[],
    env: Record<string, string>,
    input?: string,
  ): Promise<{ stdout: string; stderr: string }>;
  /** Uses another template (a binding removed): the functions restart with its policies. */
  redeploy(template: Template): void;
  stop(): Promise<void>;
}

export async function startHarness(
  props: Partial<HandoffStackProps>,
  dynamoEndpoint: string,
): Promise<Harness> {
  const gateway = new AwsGateway(dynamoEndpoint);
  const network = await gateway.start();
  const endpoint = network.endpoint;
  const callers = new Map<string, Principal>([
    [OPERATOR.accessKeyId, { name: 'operator', statements: EVERYTHING }],
  ]);
  const cloud = new Cloud(gateway, network, callers);
  const apiUrl = await cloud.startApi();
  const built = buildStack(props, { bundle: true });
  const outdir = built.app.outdir;
  // The Node.js runtime of Lambda provides the AWS SDK v3, and nothing else.
  mkdirSync(path.join(outdir, 'node_modules'), { recursive: true });
  symlinkSync(
    path.join(PROJECT_ROOT, 'node_modules', '@aws-sdk'),
    path.join(outdir, 'node_modules', '@aws-sdk'),
    'dir',
  );
  const template = built.template.toJSON() as Template & { Outputs: Record<string, { Value: never }> };

  const deploy = (t: Template): Deployment => {
    const d = new Deployment(t, outdir, apiUrl, `${props.modelProvider ?? 'bedrock'}-`);
    for (const fn of d.functions.values())
      gateway.addPrincipal(accessKeyOf(fn), { name: fn.name, statements: fn.statements });
    gateway.addPrincipal(OPERATOR.accessKeyId, { name: 'operator', statements: EVERYTHING });
    cloud.deployment = d;
    return d;
  };
  let deployment = deploy(template);
  const outputs = Object.fromEntries(
    Object.entries(template.Outputs).map(([k, o]) => [k, String(deployment.resolve(o.Value))]),
  );
  // What CloudFormation creates: the table, the secrets' generated values, the encrypted topic.
  const operatorClient = new DynamoDBClient({
    region: REGION,
    endpoint: dynamoEndpoint,
    credentials: OPERATOR,
  });
  await ensureTable(operatorClient, outputs.TableName!);
  const store = new DynamoDbStore(createDocumentClient(operatorClient), outputs.TableName!);
  for (const id of Object.keys(template.Resources).filter(
    (r) => template.Resources[r]!.Type === 'AWS::SecretsManager::Secret',
  ))
    gateway.secrets.set(deployment.ref(id), randomBytes(48).toString('base64url').slice(0, 64));
  const topic = deployment.only('AWS::SNS::Topic');
  gateway.topicKeys.set(
    deployment.ref(topic),
    String(deployment.resolve(template.Resources[topic]!.Properties!.KmsMasterKeyId!)),
  );

  const signer = new SignatureV4({
    service: 'execute-api',
    region: REGION,
    credentials: OPERATOR,
    sha256: Sha256,
  });
  const operatorEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: OPERATOR.accessKeyId,
    AWS_SECRET_ACCESS_KEY: OPERATOR.secretAccessKey,
    AWS_ENDPOINT_URL: endpoint,
    API_URL: apiUrl,
  };
  return {
    built,
    get deployment() {
      return deployment;
    },
    gateway,
    cloud,
    apiUrl,
    endpoint,
    outputs,
    store,
    async api(method, pathAndQuery, body, contentType = 'application/json') {
      const url = new URL(pathAndQuery, apiUrl);
      const signed = await signer.sign({
        method,
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { host: url.host, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        ...(body !== undefined ? { body } : {}),
      });
      return fetch(url, { method, headers: signed.headers, ...(body !== undefined ? { body } : {}) });
    },
    async cli(args, env, input) {
      const child = run(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'handoff.js'), ...args], {
        cwd: PROJECT_ROOT,
        env: { ...operatorEnv, ...env },
        timeout: 60_000,
      });
      if (input !== undefined) child.child.stdin?.end(input);
      return child;
    },
    redeploy(t) {
      deployment = deploy(t);
      cloud.resetContainers();
    },
    async stop() {
      await cloud.stop();
      await gateway.stop();
      operatorClient.destroy();
      built.cleanup();
    },
  };
}

/** The operator's shell for the README's commands: curl and the CLI against the deployment. */
export function operatorShell(h: Harness): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: OPERATOR.accessKeyId,
    AWS_SECRET_ACCESS_KEY: OPERATOR.secretAccessKey,
    AWS_ENDPOINT_URL: h.endpoint,
    API_URL: h.apiUrl,
  };
}

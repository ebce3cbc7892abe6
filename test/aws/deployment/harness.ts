/**
 * A deployment of the synthesized template on this machine: the stack synthesised with its
 * real bundles, each function run from its asset with only its template environment, the AWS
 * network stood in for by the gateway (IAM enforced from the template), DynamoDB Local for
 * the table, and API Gateway, EventBridge, Scheduler and Lambda's async invocation by Cloud.
 * One harness deploys several variants of the stack in turn: the bundles are made once (they
 * do not depend on the stack's parameters), the servers are shared, and each variant gets its
 * own template, resource names and table.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { PROJECT_ROOT } from '../../../lib/functions.ts';
import type { HandoffStackProps } from '../../../lib/handoff-stack.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../../shared/store/dynamodb-store.ts';
import { PLATFORM_WORKSPACE } from '../../../shared/workspaces/names.ts';
import { buildStack, tempOutdir } from '../../infra/fixture.ts';
import { Cloud, type Caller } from './cloud.ts';
import { AwsGateway } from './gateway.ts';
import { accessKeyOf } from './runtime.ts';
import { Sha256 } from './sigv4.ts';
import { Deployment, REGION, type Statement, type Template } from './template.ts';

const run = promisify(execFile);

/** The operator at the terminal: their own credentials, allowed everything (the README's commands). */
export const OPERATOR = { accessKeyId: 'AKIAOPERATOR00000000', secretAccessKey: 'operator-secret' };
const EVERYTHING: Statement[] = [{ Effect: 'Allow', Action: ['*'], Resource: ['*'] }];

type Outputs = Record<string, { Value: never }>;

export interface Harness {
  gateway: AwsGateway;
  cloud: Cloud;
  apiUrl: string;
  endpoint: string;
  /** Synthesizes the stack with `props` (bundling only the first time) and deploys it in place of the last. */
  deploy(props: Partial<HandoffStackProps>): Promise<void>;
  /** The props of the deployment in place. */
  props: Partial<HandoffStackProps>;
  /** The synthesized template of the deployment in place, as synthesized. */
  template: Template;
  deployment: Deployment;
  /** The stack's outputs, resolved. */
  outputs: Record<string, string>;
  /** The schedule group's name. */
  scheduleGroup: string;
  /** The operator's store of the deployment's table (to read what the functions wrote). */
  store: DynamoDbStore;
  /** The same table, seen as workspace `workspace` (an id). */
  storeOf(workspace: string): DynamoDbStore;
  /** The id of the workspace named `name` (`handoff workspaces add` made it). */
  workspaceId(name: string): Promise<string>;
  /** A SigV4-signed request to the API as the operator (IAM auth); `headers` are sent unsigned. */
  api(
    method: string,
    pathAndQuery: string,
    body?: string,
    contentType?: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** Runs the project's CLI as the operator does against the deployment (README's commands). */
  cli(
    args: string[],
    env: Record<string, string>,
    input?: string,
  ): Promise<{ stdout: string; stderr: string }>;
  /** The operator's shell environment: their credentials, the region, the network and API_URL. */
  shellEnv(): Record<string, string>;
  /** Uses another template (a binding removed): the functions restart with its policies. */
  redeploy(template: Template): void;
  stop(): Promise<void>;
}

export async function startHarness(dynamoEndpoint: string): Promise<Harness> {
  const gateway = new AwsGateway(dynamoEndpoint);
  const network = await gateway.start();
  const endpoint = network.endpoint;
  const operator: Caller = {
    principal: { name: 'operator', statements: EVERYTHING },
    secretAccessKey: OPERATOR.secretAccessKey,
  };
  const callers = new Map<string, Caller>([[OPERATOR.accessKeyId, operator]]);
  const cloud = new Cloud(gateway, network, callers);
  const apiUrl = await cloud.startApi();
  // One cloud assembly for every variant: CDK stages each bundle once per assembly.
  const outdir = tempOutdir();
  // The Node.js runtime of Lambda provides the AWS SDK v3, and nothing else.
  mkdirSync(path.join(outdir, 'node_modules'), { recursive: true });
  symlinkSync(
    path.join(PROJECT_ROOT, 'node_modules', '@aws-sdk'),
    path.join(outdir, 'node_modules', '@aws-sdk'),
    'dir',
  );
  const operatorClient = new DynamoDBClient({
    region: REGION,
    endpoint: dynamoEndpoint,
    credentials: OPERATOR,
  });
  const signer = new SignatureV4({
    service: 'execute-api',
    region: REGION,
    credentials: OPERATOR,
    sha256: Sha256,
  });
  const shellEnv = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: OPERATOR.accessKeyId,
    AWS_SECRET_ACCESS_KEY: OPERATOR.secretAccessKey,
    AWS_ENDPOINT_URL: endpoint,
    API_URL: apiUrl,
  });

  let deployed = 0;
  let current:
    | {
        props: Partial<HandoffStackProps>;
        template: Template;
        deployment: Deployment;
        outputs: Record<string, string>;
        store: DynamoDbStore;
      }
    | undefined;
  const now = () => {
    if (!current) throw new Error('nothing is deployed yet: call deploy() first');
    return current;
  };
  const use = (t: Template, prefix: string, stackName: string): Deployment => {
    const d = new Deployment(t, outdir, apiUrl, prefix, stackName);
    for (const fn of d.functions.values())
      gateway.addPrincipal(accessKeyOf(fn), { name: fn.name, statements: fn.statements });
    gateway.addPrincipal(OPERATOR.accessKeyId, operator.principal);
    cloud.deployment = d;
    return d;
  };

  return {
    gateway,
    cloud,
    apiUrl,
    endpoint,
    async deploy(props) {
      gateway.reset();
      cloud.reset();
      const built = buildStack(props, { bundle: true, outdir });
      const template = built.template.toJSON() as Template & { Outputs: Outputs };
      // Each deployment its own resource names (and so its own table on DynamoDB Local).
      current = undefined;
      const deployment = use(template, `d${++deployed}-`, `handoff-${props.stage ?? 'dev'}`);
      const outputs = Object.fromEntries(
        Object.entries(template.Outputs).map(([k, o]) => [k, String(deployment.resolve(o.Value))]),
      );
      // What CloudFormation creates: the table, the secrets' generated values, the encrypted topic.
      await ensureTable(operatorClient, outputs.TableName!);
      for (const id of Object.keys(template.Resources).filter(
        (r) => template.Resources[r]!.Type === 'AWS::SecretsManager::Secret',
      ))
        gateway.secrets.set(deployment.ref(id), randomBytes(48).toString('base64url').slice(0, 64));
      const topic = deployment.only('AWS::SNS::Topic');
      gateway.topicKeys.set(
        deployment.ref(topic),
        String(deployment.resolve(template.Resources[topic]!.Properties!.KmsMasterKeyId!)),
      );
      const store = new DynamoDbStore(createDocumentClient(operatorClient), outputs.TableName!);
      current = { props, template, deployment, outputs, store };
    },
    get props() {
      return now().props;
    },
    get template() {
      return now().template;
    },
    get deployment() {
      return now().deployment;
    },
    get outputs() {
      return now().outputs;
    },
    get scheduleGroup() {
      return String(
        now().deployment.resolve({ Ref: now().deployment.only('AWS::Scheduler::ScheduleGroup') }),
      );
    },
    get store() {
      return now().store;
    },
    storeOf(workspace) {
      return new DynamoDbStore(createDocumentClient(operatorClient), now().outputs.TableName!, { workspace });
    },
    async workspaceId(name) {
      const all = await new DynamoDbStore(createDocumentClient(operatorClient), now().outputs.TableName!, {
        workspace: PLATFORM_WORKSPACE,
      }).list('workspaces');
      const found = all.find((w) => w.name === name && !w.removed_at);
      if (!found) throw new Error(`no workspace is named ${name}`);
      return String(found.id);
    },
    async api(method, pathAndQuery, body, contentType = 'application/json', headers = {}) {
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
      return fetch(url, {
        method,
        headers: { ...signed.headers, ...headers },
        ...(body !== undefined ? { body } : {}),
      });
    },
    async cli(args, env, input) {
      const child = run(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'handoff.js'), ...args], {
        cwd: PROJECT_ROOT,
        env: { ...shellEnv(), ...env },
        timeout: 60_000,
      });
      if (input !== undefined) child.child.stdin?.end(input);
      return child;
    },
    shellEnv,
    redeploy(t) {
      const d = use(t, now().deployment.prefix, now().deployment.stackName);
      current = { ...now(), deployment: d };
      cloud.resetContainers();
    },
    async stop() {
      await cloud.stop();
      await gateway.stop();
      operatorClient.destroy();
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}

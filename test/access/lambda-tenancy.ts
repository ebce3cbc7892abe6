/**
 * The Lambda app as a target of the two-tenant suite: the api function's app and handler (the
 * same `lambdaWebApp` and `lambdaWebHandler`, over a dynalite table) behind an HTTP front that
 * turns each request into API Gateway's payload v2 event. `/api/*` reaches the app unsigned,
 * as on the deployed API; the app checks the key. KMS, SNS and EventBridge are mocked at the
 * command level (KMS seals and opens as KMS does; SNS notices are kept to read their links);
 * the executor's steps are run in this process when a test needs a run to pause.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { PutEventsCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { lambdaClients } from '../../shared/aws/clients.ts';
import { engineForLambda, lambdaEngines, lambdaPlatform } from '../../shared/aws/lambda-engine.ts';
import { lambdaEnvFor } from '../../shared/aws/lambda-env.ts';
import { lambdaWebApp, lambdaWebHandler } from '../../shared/aws/lambda-web.ts';
import { kmsOnlyCredentials } from '../../shared/credentials/open-credentials.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { modelFactory } from '../../shared/models/provider.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { createDocumentClient, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { addApiKey } from '../../shared/workspaces/api-keys.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { KMS_KEY, mockKms } from '../aws/imap-deployment.ts';
import { deploymentEnv, lambdaContext, REGION } from '../aws/support.ts';
import type { Tenancy } from './tenancy.ts';

export async function startLambdaTenancy(
  adminKey: string,
  webhookSecret: string,
  stateDir: string,
): Promise<Tenancy> {
  const dynalite = await startDynalite();
  const client = dynaliteClient(dynalite.endpoint);
  const table = `tenants-${randomUUID()}`;
  await ensureTable(client, table);
  mockKms();
  const sns = mockClient(SNSClient);
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  const bus = mockClient(EventBridgeClient);
  bus.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });

  let url = '';
  const source = { ...deploymentEnv(table, dynalite.endpoint, stateDir), HANDOFF_KMS_KEY_ID: KMS_KEY };
  const env = lambdaEnvFor('api', { ...source, UI_BASE_URL: 'https://handoff.example.com' });
  const clients = lambdaClients(env);
  const keyBytes = randomBytes(32);
  const linkKey = { get: async () => keyBytes };
  const credentials = (store: Parameters<typeof kmsOnlyCredentials>[1], workspace: string) =>
    kmsOnlyCredentials(REGION, store, source, workspace);
  const engineOf = lambdaEngines('api', env, clients, { linkKey, credentials });
  const platform = lambdaPlatform(env, clients, engineOf);
  // What the api and webhook handlers read from Secrets Manager before their first request.
  env.HANDOFF_API_KEY = adminKey;
  env.HANDOFF_WEBHOOK_SECRET = webhookSecret;
  const { app, launcher } = lambdaWebApp({
    engine: engineOf('default'),
    platform,
    env,
    linkKey,
    onWorkflowChange: async () => undefined,
  });
  const handle = lambdaWebHandler(app, launcher);

  const server: Server = createServer((req, res) => {
    void toEvent(req).then(async (event) => {
      const out = await handle(event, lambdaContext('handoff-api'));
      res.writeHead(out.statusCode ?? 200, (out.headers ?? {}) as Record<string, string>);
      res.end(out.isBase64Encoded ? Buffer.from(out.body ?? '', 'base64') : (out.body ?? ''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Links point at the API's own address here (the deployed API's UI_BASE_URL).
  platform.configure((engine) => (engine.settings.uiBaseUrl = url));
  engineOf('default').settings.uiBaseUrl = url;

  const docs = createDocumentClient(client);
  return {
    kind: 'lambda',
    url,
    adminKey,
    async workspaceWithKey(name) {
      const { id } = await platform.registry.add(name);
      return { id, key: (await addApiKey(platform.store, id)).key };
    },
    async addWorkspace(name) {
      return platform.registry.add(name);
    },
    async removeWorkspace(name) {
      const workspace = await platform.registry.resolve(name);
      await platform.registry.remove(name, platform.engineFor(workspace.id).store);
    },
    async renameWorkspace(from, to) {
      await platform.registry.rename(from, to);
    },
    async setCredential(workspace, name, value) {
      const { id } = await platform.registry.resolve(workspace);
      await platform.engineFor(id).credentials.set(name, new Secret(value));
    },
    async stateOf(id) {
      const items = (await docs.send(new ScanCommand({ TableName: table }))).Items ?? [];
      return items
        .filter((i) => String(i.pk).startsWith(`${id}#`))
        .map((i) => JSON.stringify(i))
        .sort();
    },
    children: () => [],
    async pause(workspace, runId) {
      // The executor function's step, as EventBridge would deliver it (its engine runs the model).
      const executor = engineForLambda(
        'executor',
        env,
        clients,
        { linkKey, credentials, models: modelFactory('local') },
        workspace,
      );
      executor.settings.uiBaseUrl = url;
      await runStep(executor, runId, 'executor');
    },
    notices: () =>
      sns
        .commandCalls(PublishCommand)
        .map((c) => c.args[0].input.Message ?? '')
        .join('\n'),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      sns.restore();
      bus.restore();
      client.destroy();
      await dynalite.stop();
    },
  };
}

/** The payload v2 event API Gateway makes of a request on a route without a gateway authorizer. */
async function toEvent(req: IncomingMessage): Promise<APIGatewayProxyEventV2> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(req.url ?? '/', 'http://gateway');
  const headers = Object.fromEntries(
    Object.entries(req.headers)
      .filter(([k]) => k !== 'cookie')
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
  );
  const host = req.headers.host ?? '';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: host,
      domainPrefix: 'api',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.9',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body.length ? { body: body.toString('base64'), isBase64Encoded: true } : { isBase64Encoded: false }),
  };
}

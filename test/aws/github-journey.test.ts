/**
 * The GitHub pull-request journey as AWS runs it, in this process: a `pull_request` delivery
 * signed as GitHub signs it → the webhook function → trigger, executor, resume and completer
 * steps → the PR review template's label or review, made through a local MCP server standing
 * in for GitHub's, exactly once; DynamoDB real (dynalite), the AWS services mocked.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addEntry } from '../../shared/integrations/registry.ts';
import { BUILTIN_ENTRIES } from '../../shared/integrations/servers.ts';
import { listDecisions } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { readTemplate } from '../../shared/workflows/templates.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../support/github-mcp.ts';
import { githubHeaders, pullRequestEvent } from '../support/github-payload.ts';
import { ARNS, deliver, deploymentEnv, httpEvent, lambdaContext } from './support.ts';

interface Handlers {
  api: typeof import('../../lambdas/api.ts').handler;
  executor: typeof import('../../lambdas/executor.ts').handler;
  resume: typeof import('../../lambdas/resume.ts').handler;
  completer: typeof import('../../lambdas/completer.ts').handler;
  webhook: typeof import('../../lambdas/webhook.ts').handler;
}

const WEBHOOK_SECRET = 'github-webhook-secret-0123456789';
const eventBridge = mockClient(EventBridgeClient);
const sns = mockClient(SNSClient);
const secrets = mockClient(SecretsManagerClient);

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let dir: string;
let client: DynamoDBClient;
let store: DynamoDbStore;
let github: GitHubStandIn;
let h: Handlers;
const ctx = () => lambdaContext();

function steps(node: string): PutEventsRequestEntry[] {
  return eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap((c) => c.args[0].input.Entries ?? [])
    .filter(
      (e) => e.DetailType === 'handoff.step' && (JSON.parse(e.Detail!) as { node: string }).node === node,
    );
}
const lastStep = (node: string) => steps(node).at(-1)!;

const hook = (payload: Record<string, unknown>, delivery: string) => {
  const body = JSON.stringify(payload);
  return httpEvent('POST', '/hooks/pr-review', {
    body,
    headers: githubHeaders(body, WEBHOOK_SECRET, 'pull_request', delivery),
  });
};

beforeAll(async () => {
  dynalite = await startDynalite();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-github-'));
  const table = `handoff-${Date.now()}`;
  Object.assign(process.env, deploymentEnv(table, dynalite.endpoint, path.join(dir, 'state')));
  client = dynaliteClient(dynalite.endpoint);
  await ensureTable(client, table);
  store = new DynamoDbStore(createDocumentClient(client), table);
  github = await startGitHubStandIn();
  // The built-in github entry, pointed at the stand-in; its argument templates are the built-in ones.
  const builtin = BUILTIN_ENTRIES.find((e) => e.name === 'github')!;
  await addEntry(store, { ...builtin, transport: { kind: 'http', url: github.url } });

  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.linkKey })
    .resolves({ SecretString: randomBytes(32).toString('base64') });
  secrets
    .on(GetSecretValueCommand, { SecretId: ARNS.apiKey })
    .resolves({ SecretString: 'api-key-0123456789' });
  secrets.on(GetSecretValueCommand, { SecretId: ARNS.webhook }).resolves({ SecretString: WEBHOOK_SECRET });
  h = {
    api: (await import('../../lambdas/api.ts')).handler,
    executor: (await import('../../lambdas/executor.ts')).handler,
    resume: (await import('../../lambdas/resume.ts')).handler,
    completer: (await import('../../lambdas/completer.ts')).handler,
    webhook: (await import('../../lambdas/webhook.ts')).handler,
  };
  const saved = await h.api(
    httpEvent('PUT', '/api/workflows/pr-review', {
      body: await readTemplate('pr-review'),
      contentType: 'application/yaml',
    }),
    ctx(),
  );
  expect(saved.statusCode).toBe(201);
});

afterAll(async () => {
  await github?.close();
  client?.destroy();
  await dynalite?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a GitHub pull request on AWS (in-process)', () => {
  it('a dependency bump: webhook → executor labels it low-risk at once → completer', async () => {
    const bump = pullRequestEvent({
      number: 7,
      title: 'Bump lodash from 4.17.20 to 4.17.21',
      body: 'Bumps [lodash](https://github.com/lodash/lodash) from 4.17.20 to 4.17.21.',
      login: 'dependabot[bot]',
      bot: true,
      sha: '7777777777777777777777777777777777777777',
      changed_files: 2,
      additions: 5,
      deletions: 5,
    });
    const started = await h.webhook(hook(bump, 'delivery-7'), ctx());
    expect(started.statusCode).toBe(202);
    const { run_id } = JSON.parse(started.body!) as { run_id: string };
    expect(await h.executor(deliver(lastStep('executor')), ctx())).toMatchObject({ run_id });
    expect(await h.completer(deliver(lastStep('completer')), ctx())).toMatchObject({
      run_id,
      status: 'completed',
    });
    expect(github.calls).toEqual([
      {
        tool: 'update_issue',
        args: { owner: 'octo-org', repo: 'widgets', issue_number: 7, labels: ['low-risk'] },
      },
    ]);
  });

  it('a feature: asked, answered through the decision API, reviewed once; a redelivery changes nothing', async () => {
    github.calls.length = 0;
    const feature = pullRequestEvent({
      number: 42,
      title: 'Retry uploads on timeout',
      body: 'Uploads now retry three times before failing.',
      sha: '4242424242424242424242424242424242424242',
    });
    const started = await h.webhook(hook(feature, 'delivery-42'), ctx());
    expect(started.statusCode).toBe(202);
    const { run_id } = JSON.parse(started.body!) as { run_id: string };
    // The executor runs in its own function: the items come from the run record, not the request.
    expect(await h.executor(deliver(lastStep('executor')), ctx())).toMatchObject({
      run_id,
      status: 'waiting',
    });
    const [asked] = (await listDecisions(store)).filter((d) => d.run_id === run_id);
    expect(asked).toMatchObject({
      item_id: 'octo-org/widgets#42@4242424242424242424242424242424242424242',
      suggested_action: 'github__create_and_submit_pull_request_review',
      status: 'pending',
    });
    expect(github.calls).toEqual([]);

    const answered = await h.api(
      httpEvent('POST', `/api/decisions/${asked!.id}`, {
        // The review's text is the answer's body (the words shown with the question); the note teaches.
        body: JSON.stringify({
          action: 'approve_suggested',
          note: 'reviews of features are asked about',
          body: 'Please add a test for the third retry.',
        }),
        contentType: 'application/json',
      }),
      ctx(),
    );
    expect(answered.statusCode).toBe(200);
    // Resumed in the resume function, from the record alone.
    await h.resume(deliver(lastStep('resume')), ctx());
    expect(await h.completer(deliver(lastStep('completer')), ctx())).toMatchObject({
      run_id,
      status: 'completed',
    });
    const review = {
      tool: 'create_and_submit_pull_request_review',
      args: {
        owner: 'octo-org',
        repo: 'widgets',
        pullNumber: 42,
        commitID: '4242424242424242424242424242424242424242',
        event: 'COMMENT',
        body: 'Please add a test for the third retry.',
      },
    };
    expect(github.calls).toEqual([review]);

    // GitHub redelivers: same X-GitHub-Delivery, so the same run, and nothing else happens.
    const before = await getRun(store, run_id);
    const executorSteps = steps('executor').length;
    const again = await h.webhook(hook(feature, 'delivery-42'), ctx());
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body!)).toEqual({ run_id, duplicate: true });
    expect(await getRun(store, run_id)).toEqual(before);
    expect(steps('executor')).toHaveLength(executorSteps);
    expect((await store.list('runs')).length).toBe(2);
    expect(github.calls).toEqual([review]);
  });
});

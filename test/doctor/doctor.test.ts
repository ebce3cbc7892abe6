import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { printDoctor } from '../../shared/cli/commands/doctor.ts';
import { loadEnv } from '../../shared/config/env.ts';
import {
  broken,
  describeResults,
  exitCodeFor,
  ok,
  runChecks,
  type Check,
} from '../../shared/doctor/check.ts';
import { modelCheck } from '../../shared/doctor/checks.ts';
import { runDoctor, type DoctorDeps } from '../../shared/doctor/doctor.ts';
import { snsTopicCheck } from '../../shared/doctor/sns-check.ts';
import { InvalidInputError } from '../../shared/errors/index.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { credentialsFor } from '../../shared/credentials/open-credentials.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { saveSettings } from '../../shared/settings/settings.ts';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { slackServer, TOKEN } from '../notify/slack-server.ts';
import { workflowYaml } from '../support/engine-fixture.ts';
import { ScriptedModel } from '../support/scripted-model.ts';

let dir: string;
let server: Awaited<ReturnType<typeof slackServer>> | undefined;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-doctor-'));
});
afterEach(async () => {
  jest.restoreAllMocks();
  await server?.close();
  server = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

const check = (name: string, run: Check['run']): Check => ({ name, run });
const noModel = async (): Promise<never> => {
  throw new Error('the offline provider must not build a model to be checked');
};

function deps(over: Partial<DoctorDeps> = {}): DoctorDeps {
  return { store: new JsonFileStore(dir), model: noModel, integrations: async () => [], source: {}, ...over };
}

describe('running checks', () => {
  it('exits non-zero when any check is broken, throws or does not answer in time', async () => {
    const results = await runChecks(
      [
        check('store', async () => ok('JSON files')),
        check('model (groq)', async () => broken('HTTP 401: invalid API key')),
        check('integration linear', async () => {
          throw new Error('connect ECONNREFUSED\n  at somewhere');
        }),
        check('notify (slack)', () => new Promise(() => {})),
      ],
      50,
    );
    expect(results).toEqual([
      { check: 'store', ok: true, detail: 'JSON files' },
      { check: 'model (groq)', ok: false, reason: 'HTTP 401: invalid API key' },
      { check: 'integration linear', ok: false, reason: 'connect ECONNREFUSED at somewhere' },
      { check: 'notify (slack)', ok: false, reason: 'no answer within 0 s' },
    ]);
    expect(exitCodeFor(results)).toBe(1);
    expect(exitCodeFor(results.slice(0, 1))).toBe(0);
    expect(describeResults(results.slice(0, 2))).toEqual([
      'ok    store         JSON files',
      'FAIL  model (groq)  HTTP 401: invalid API key',
    ]);
  });

  it('prints `[{check, ok, detail|reason}]` with --json and returns the exit code', async () => {
    let out = '';
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const results = await runChecks([
      check('store', async () => ok('fine')),
      check('x', async () => broken('no')),
    ]);
    expect(printDoctor(results, { json: true })).toBe(1);
    expect(JSON.parse(out)).toEqual([
      { check: 'store', ok: true, detail: 'fine' },
      { check: 'x', ok: false, reason: 'no' },
    ]);
  });
});

describe('handoff doctor, as the environment configures it', () => {
  it('reports the offline model and the console channel as working, without any network', async () => {
    const env = loadEnv({ HANDOFF_STATE_DIR: dir });
    const results = await runDoctor(env, deps());
    expect(results.map((r) => [r.check, r.ok])).toEqual([
      ['store', true],
      ['model (local)', true],
      ['learning', true],
      ['notify (console)', true],
    ]);
    expect(exitCodeFor(results)).toBe(0);
  });

  it('checks Slack with auth.test against the configured API: ok, then refused', async () => {
    let answer: Record<string, unknown> = { ok: true, user: 'handoff', team: 'Northwind' };
    server = await slackServer(() => ({ body: answer }));
    const env = loadEnv({ HANDOFF_STATE_DIR: dir, NOTIFY_CHANNEL: 'slack' });
    const source = { SLACK_BOT_TOKEN: TOKEN, SLACK_CHANNEL: 'C0123', SLACK_API_BASE_URL: server.baseUrl };

    const good = await runDoctor(env, deps({ source }));
    expect(good.at(-1)).toEqual({
      check: 'notify (slack)',
      ok: true,
      detail: 'token works: posts as handoff in Northwind to C0123',
    });
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/api/auth.test' });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    answer = { ok: false, error: 'invalid_auth' };
    const bad = await runDoctor(env, deps({ source }));
    expect(bad.at(-1)).toEqual({
      check: 'notify (slack)',
      ok: false,
      reason: 'auth.test refused: invalid_auth (the token is not valid; check SLACK_BOT_TOKEN)',
    });
    expect(exitCodeFor(bad)).toBe(1);
    expect(JSON.stringify(bad)).not.toContain(TOKEN);
  });

  it('checks the channel saved in Settings, with the Slack token from the workspace credentials', async () => {
    server = await slackServer(() => ({ body: { ok: true, user: 'handoff', team: 'Northwind' } }));
    const env = loadEnv({ HANDOFF_STATE_DIR: dir }); // NOTIFY_CHANNEL is console
    const store = new JsonFileStore(dir);
    await saveSettings(store, { confidence_threshold: null, notify_channel: 'slack', ui_base_url: null });
    const credentials = credentialsFor(env, store, {});
    await credentials.set('SLACK_BOT_TOKEN', new Secret(TOKEN));
    await credentials.set('SLACK_CHANNEL', new Secret('C0456'));
    const results = await runDoctor(
      env,
      deps({ store, credentials, source: { SLACK_API_BASE_URL: server.baseUrl } }),
    );
    expect(results.at(-1)).toEqual({
      check: 'notify (slack)',
      ok: true,
      detail: 'token works: posts as handoff in Northwind to C0456',
    });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('reports a Slack channel with no token as broken, naming the variable', async () => {
    const env = loadEnv({ HANDOFF_STATE_DIR: dir, NOTIFY_CHANNEL: 'slack' });
    const results = await runDoctor(env, deps());
    expect(results.at(-1)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/SLACK_BOT_TOKEN is not set/),
    });
  });

  it('lists integration checks, and one broken line when they cannot be listed', async () => {
    const env = loadEnv({ HANDOFF_STATE_DIR: dir });
    const listed = await runDoctor(
      env,
      deps({
        integrations: async () => [
          check('integration linear', async () => broken('needs credential LINEAR_API_KEY')),
        ],
      }),
    );
    expect(listed.find((r) => r.check.startsWith('integration'))).toEqual({
      check: 'integration linear',
      ok: false,
      reason: 'needs credential LINEAR_API_KEY',
    });
    const unlisted = await runDoctor(
      env,
      deps({
        integrations: async () => {
          throw new Error('credentials.key is unreadable');
        },
      }),
    );
    expect(unlisted.find((r) => r.check.startsWith('integration'))).toEqual({
      check: 'integrations',
      ok: false,
      reason: 'could not list them: credentials.key is unreadable',
    });
  });
});

describe("each workflow's source", () => {
  it('says how many items each source holds, or why it cannot be read, acting on nothing', async () => {
    const store = new JsonFileStore(dir);
    const maildir = path.join(dir, 'Maildir');
    const total = await createDemoMaildir(maildir);
    const before = (await fs.readdir(path.join(maildir, 'new'))).sort();
    await saveWorkflow(store, parseWorkflow(workflowYaml(maildir), 'inbox.yaml'));
    const missing = workflowYaml(path.join(dir, 'gone')).replace(/^id: .*$/m, 'id: gone');
    await saveWorkflow(store, parseWorkflow(missing, 'gone.yaml'));

    const results = await runDoctor(loadEnv({ HANDOFF_STATE_DIR: dir }), deps({ store }));

    expect(results.filter((r) => r.check.startsWith('source'))).toEqual([
      {
        check: 'source (gone)',
        ok: false,
        reason: `maildir: ${path.join(dir, 'gone')}: not a Maildir (no new/ or cur/ folder)`,
      },
      { check: 'source (inbox)', ok: true, detail: `maildir: ${total} ${total === 1 ? 'item' : 'items'}` },
    ]);
    expect(results.at(-1)?.check).toBe('notify (console)');
    expect(exitCodeFor(results)).toBe(1);
    expect((await fs.readdir(path.join(maildir, 'new'))).sort()).toEqual(before);
  });
});

describe('the model check', () => {
  it('makes one tiny real request through the configured provider', async () => {
    let prompts = 0;
    const model = new ScriptedModel(() => (prompts++, { text: 'OK' }));
    model.updateConfig({ modelId: 'llama-3.1-8b-instant' });
    const [result] = await runChecks([modelCheck('groq', async () => model)]);
    expect(result).toMatchObject({
      check: 'model (groq)',
      ok: true,
      detail: expect.stringMatching(/^llama-3\.1-8b-instant answered in \d+ ms$/),
    });
    expect(prompts).toBe(1);
  });

  it('reports the provider’s refusal, or a provider this build cannot make, as the reason', async () => {
    const refusing = new ScriptedModel(() => {
      throw new Error('401 Unauthorized: invalid x-api-key');
    });
    const results = await runChecks([
      modelCheck('anthropic', async () => refusing),
      modelCheck('bedrock', async () => {
        throw new InvalidInputError('HANDOFF_MODEL_PROVIDER=bedrock is not available in this build yet');
      }),
    ]);
    expect(results).toEqual([
      { check: 'model (anthropic)', ok: false, reason: '401 Unauthorized: invalid x-api-key' },
      {
        check: 'model (bedrock)',
        ok: false,
        reason: 'HANDOFF_MODEL_PROVIDER=bedrock is not available in this build yet',
      },
    ]);
  });
});

describe('the SNS check', () => {
  const topic = 'arn:aws:sns:us-east-1:123456789012:handoff-notices';

  it('reads the topic with GetTopicAttributes and needs a confirmed subscription', async () => {
    const sns = mockClient(SNSClient);
    sns
      .on(GetTopicAttributesCommand)
      .resolvesOnce({ Attributes: { SubscriptionsConfirmed: '2', SubscriptionsPending: '0' } })
      .resolvesOnce({ Attributes: { SubscriptionsConfirmed: '0', SubscriptionsPending: '1' } });
    const client = new SNSClient({ region: 'us-east-1' });
    const results = await runChecks([snsTopicCheck(client, topic), snsTopicCheck(client, topic)]);
    expect(sns.commandCalls(GetTopicAttributesCommand).map((c) => c.args[0].input)).toEqual([
      { TopicArn: topic },
      { TopicArn: topic },
    ]);
    expect(results.map((r) => (r.ok ? r.detail : r.reason)).sort()).toEqual([
      'topic handoff-notices has no confirmed subscription (1 waiting: confirm the email from AWS): notices reach nobody',
      'topic handoff-notices: 2 confirmed subscriptions',
    ]);
    sns.restore();
  });

  it('reports a missing topic ARN and AWS refusals as broken', async () => {
    const sns = mockClient(SNSClient);
    sns.on(GetTopicAttributesCommand).rejects(new Error('Topic does not exist'));
    const client = new SNSClient({ region: 'us-east-1' });
    const results = await runChecks([snsTopicCheck(client, undefined), snsTopicCheck(client, topic)]);
    expect(results).toEqual([
      {
        check: 'notify (sns)',
        ok: false,
        reason: 'NOTIFY_TOPIC_ARN is not set: the topic notices are published to',
      },
      { check: 'notify (sns)', ok: false, reason: 'Topic does not exist' },
    ]);
    sns.restore();
  });
});

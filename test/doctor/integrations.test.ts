import 'aws-sdk-client-mock-jest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  AccessDeniedException,
  BedrockAgentCoreClient,
  StartCodeInterpreterSessionCommand,
  StopCodeInterpreterSessionCommand,
} from '@aws-sdk/client-bedrock-agentcore';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { credentialsFor } from '../../shared/credentials/open-credentials.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { exitCodeFor, runChecks } from '../../shared/doctor/check.ts';
import { doctorFromEnv, runDoctor } from '../../shared/doctor/doctor.ts';
import { integrationChecks, liveProbe } from '../../shared/doctor/integrations.ts';
import { addEntry, type RegistryEntry } from '../../shared/integrations/registry.ts';
import { BUILTIN_ENTRIES, type ServerEntryInput } from '../../shared/integrations/servers.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { startTicketServer, type TicketServer } from '../integrations/support/http-mcp-server.ts';
import { EVERYTHING_SERVER } from '../integrations/support/npm-servers.ts';
import { slackServer, TOKEN } from '../notify/slack-server.ts';

let server: Awaited<ReturnType<typeof slackServer>> | undefined;
let tickets: TicketServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await tickets?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  server = undefined;
  tickets = undefined;
  dir = undefined;
});

function builtin(name: string, over: Partial<RegistryEntry> = {}): RegistryEntry {
  const entry = BUILTIN_ENTRIES.find((e) => e.name === name);
  if (!entry) throw new Error(`no built-in ${name}`);
  return { entry, source: 'builtin', disabled: false, ...over };
}

const credentials = {
  get: async (name: string) => (name === 'SLACK_BOT_TOKEN' ? new Secret(TOKEN) : undefined),
};

describe('integration checks', () => {
  it('checks what is configured, says what is missing, and leaves alone what nobody set up', async () => {
    const entries = [
      builtin('linear'),
      builtin('gmail'),
      builtin('github'),
      builtin('fetch'),
      builtin('agentcore_browser'),
      builtin('linear', { disabled: true }),
    ];
    const have = new Set(['LINEAR_API_KEY', 'GMAIL_CLIENT_ID']);
    const results = await runChecks(integrationChecks(entries, have, {}));
    expect(results).toEqual([
      {
        check: 'integration linear',
        ok: true,
        detail: 'ready: credentials set (no live check for this transport yet)',
      },
      { check: 'integration gmail', ok: false, reason: 'needs credential GMAIL_CLIENT_SECRET' },
    ]);
  });

  it('makes a real auth.test call for Slack with the stored token, and never shows the token', async () => {
    let answer: Record<string, unknown> = { ok: true, user: 'handoff', team: 'Northwind' };
    server = await slackServer(() => ({ body: answer }));
    const slack = builtin('slack');
    const entry: RegistryEntry = {
      ...slack,
      entry: {
        ...slack.entry,
        transport: { kind: 'slack', token: 'SLACK_BOT_TOKEN', base_url: server.baseUrl },
      },
    };
    const checks = () => integrationChecks([entry], new Set(['SLACK_BOT_TOKEN']), {}, liveProbe(credentials));

    expect(await runChecks(checks())).toEqual([
      { check: 'integration slack', ok: true, detail: 'token works: handoff in Northwind' },
    ]);
    expect(server.requests[0]).toMatchObject({ path: '/api/auth.test' });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    answer = { ok: false, error: 'token_revoked' };
    const [failed] = await runChecks(checks());
    expect(failed).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^auth\.test refused: token_revoked/),
    });
    expect(JSON.stringify(failed)).not.toContain(TOKEN);
  });
});

/** `handoff doctor` as the CLI runs it, over a state directory holding these entries and credentials. */
async function doctorWith(entries: ServerEntryInput[], credentials: Record<string, string> = {}) {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-doctor-mcp-'));
  const env = loadEnv({ HANDOFF_STATE_DIR: dir });
  const store = openStore(env); // the default workspace's, as the CLI's doctor reads it
  for (const entry of entries) await addEntry(store, entry);
  for (const [name, value] of Object.entries(credentials))
    await credentialsFor(env, store, {}).set(name, new Secret(value));
  const results = await runDoctor(env, await doctorFromEnv(env, {}));
  return { results, integrations: results.filter((r) => r.check.startsWith('integration')) };
}

function childrenRunning(script: string): string[] {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(script));
}

describe('the doctor’s one real call per MCP integration', () => {
  it('connects to a stdio server from npm, counts its tools, and closes it', async () => {
    const { results, integrations } = await doctorWith([
      {
        name: 'everything',
        title: 'Everything',
        transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER(), 'stdio'] },
      },
    ]);

    expect(integrations).toEqual([
      {
        check: 'integration everything',
        ok: true,
        detail: expect.stringMatching(
          /^connected over stdio: \d+ tools?, \d+ read-only for the model, \d+ only through the gate$/,
        ),
      },
    ]);
    const [, tools] = /: (\d+) tool/.exec((integrations[0] as { detail: string }).detail)!;
    expect(Number(tools)).toBeGreaterThan(5);
    expect(exitCodeFor(results)).toBe(0);
    expect(childrenRunning(EVERYTHING_SERVER())).toEqual([]);
  });

  it('reports a server that will not start with its own words, and exits non-zero', async () => {
    const { results, integrations } = await doctorWith([
      {
        name: 'everything',
        title: 'Everything',
        transport: {
          kind: 'stdio',
          command: process.execPath,
          args: [EVERYTHING_SERVER(), 'carrier-pigeon'],
        },
      },
    ]);

    expect(integrations).toEqual([
      {
        check: 'integration everything',
        ok: false,
        reason: expect.stringMatching(/^everything: could not connect: .*Unknown transport: carrier-pigeon/),
      },
    ]);
    expect(exitCodeFor(results)).toBe(1);
  });

  it('reports a refused token over HTTP without ever showing it, even when the server echoes it', async () => {
    tickets = await startTicketServer('the-current-token');
    const stale = 'tkn_stale_4f1c2a9e7b3d';
    const { results, integrations } = await doctorWith(
      [
        {
          name: 'tickets',
          title: 'Tickets',
          transport: { kind: 'http', url: tickets.url, bearer: 'TICKETS_TOKEN' },
        },
      ],
      { TICKETS_TOKEN: stale },
    );

    expect(tickets.authorizations).toContain(`Bearer ${stale}`); // a real call was made with it
    expect(integrations).toEqual([
      {
        check: 'integration tickets',
        ok: false,
        reason: expect.stringMatching(/^tickets: could not connect: .*bad token: Bearer \[redacted\]/),
      },
    ]);
    expect(JSON.stringify(results)).not.toContain(stale);
    expect(exitCodeFor(results)).toBe(1);
  });

  it('gives up on a server that never answers within its limit, and ends it', async () => {
    const silent = 'setInterval(() => {}, 1000) // handoff-silent-server';
    const reg = builtin('fetch', {
      source: 'user',
      entry: {
        ...builtin('fetch').entry,
        name: 'silent',
        transport: {
          kind: 'stdio',
          command: process.execPath,
          args: ['-e', silent],
          env: {},
          credential_env: {},
        },
      },
    });
    const probe = liveProbe({ get: async () => undefined }, { timeoutMs: 300 });

    const [result] = await runChecks(integrationChecks([reg], new Set(), {}, probe));

    expect(result).toEqual({
      check: 'integration silent',
      ok: false,
      reason: 'silent: could not connect: no answer within 300 ms',
    });
    expect(childrenRunning('handoff-silent-server')).toEqual([]);
  });
});

describe('the doctor’s one real call for the AgentCore Code Interpreter', () => {
  const agentcore = mockClient(BedrockAgentCoreClient);
  const aws = { AWS_PROFILE: 'dev', AWS_REGION: 'us-east-1' };
  const reg = builtin('agentcore_code_interpreter', { source: 'user' });
  const none = { get: async () => undefined };
  afterEach(() => {
    agentcore.reset();
  });

  it('starts a session, lists its tool and stops the session', async () => {
    agentcore.on(StartCodeInterpreterSessionCommand).resolves({
      codeInterpreterIdentifier: 'aws.codeinterpreter.v1',
      sessionId: 'sess-1',
      createdAt: new Date(),
    });
    agentcore
      .on(StopCodeInterpreterSessionCommand)
      .resolves({ sessionId: 'sess-1', lastUpdatedAt: new Date() });

    const results = await runChecks(integrationChecks([reg], new Set(), aws, liveProbe(none, { env: aws })));

    expect(results).toEqual([
      {
        check: 'integration agentcore_code_interpreter',
        ok: true,
        detail: 'connected over agentcore: 1 tool, 1 read-only for the model, 0 only through the gate',
      },
    ]);
    expect(agentcore).toHaveReceivedCommandWith(StartCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'aws.codeinterpreter.v1',
    });
    expect(agentcore).toHaveReceivedCommandWith(StopCodeInterpreterSessionCommand, {
      codeInterpreterIdentifier: 'aws.codeinterpreter.v1',
      sessionId: 'sess-1',
    });
  });

  it('reports a refused session, and says AWS is needed without calling anything when it is missing', async () => {
    agentcore
      .on(StartCodeInterpreterSessionCommand)
      .rejects(new AccessDeniedException({ message: 'no bedrock-agentcore permission', $metadata: {} }));

    const [refused] = await runChecks(
      integrationChecks([reg], new Set(), aws, liveProbe(none, { env: aws })),
    );
    const [noAws] = await runChecks(integrationChecks([reg], new Set(), {}, liveProbe(none, { env: {} })));

    expect(refused).toEqual({
      check: 'integration agentcore_code_interpreter',
      ok: false,
      reason:
        'agentcore_code_interpreter: could not start a session: AccessDeniedException: no bedrock-agentcore permission',
    });
    expect(noAws).toEqual({
      check: 'integration agentcore_code_interpreter',
      ok: false,
      reason: 'needs AWS',
    });
    expect(agentcore).toHaveReceivedCommandTimes(StartCodeInterpreterSessionCommand, 1);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../../shared/credentials/secret.ts';
import { runChecks } from '../../shared/doctor/check.ts';
import { integrationChecks, liveProbe } from '../../shared/doctor/integrations.ts';
import type { RegistryEntry } from '../../shared/integrations/registry.ts';
import { BUILTIN_ENTRIES } from '../../shared/integrations/servers.ts';
import { slackServer, TOKEN } from '../notify/slack-server.ts';

let server: Awaited<ReturnType<typeof slackServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
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

import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cliJson, runCli } from '../support/cli.ts';
import {
  answerAll,
  call,
  countIn,
  mcpClient,
  overHttp,
  overStdio,
  startHttp,
  stateWithInbox,
  type HttpServer,
  type State,
} from './support.ts';

interface RunReply {
  run: { run_id: string; status: string; acted: number; deferred: number };
  questions: { decision_id: string; action: string; by: string; reason: string | null }[];
}
interface AuditRow {
  item_id: string | null;
  outcome: string;
  action: string | null;
  decided_by: string | null;
}

let state: State | undefined;
let client: Client | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await http?.stop();
  await state?.cleanup();
  state = client = http = undefined;
});

async function itemAudit(env: Record<string, string>): Promise<AuditRow[]> {
  return (await cliJson<AuditRow[]>(['audit'], env)).filter((e) => e.item_id !== null);
}

describe('handoff mcp over stdio (a real child process, the official client)', () => {
  it('lists workflows and runs one; the person answers through elicitation and each action happens once', async () => {
    state = await stateWithInbox();
    const forms: unknown[] = [];
    client = mcpClient(async (request) => {
      forms.push(request.params);
      return answerAll('archive', 'statements can go')(request);
    });
    await overStdio(client, state.env);

    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['decide', 'list_pending', 'list_workflows', 'run_workflow']);
    const { workflows } = await call<{
      workflows: { id: string; actions: { name: string; irreversible: boolean }[] }[];
    }>(client, 'list_workflows');
    expect(workflows).toMatchObject([{ id: 'inbox', confidence_threshold: 0.7 }]);
    expect(workflows[0]!.actions).toContainEqual({ name: 'delete', irreversible: true });

    const unknown = await client.callTool({ name: 'run_workflow', arguments: { workflow_id: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('nope');

    const first = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });

    expect(forms).toHaveLength(1); // one question set for the run
    expect(first.run).toMatchObject({ status: 'completed', deferred: 2, acted: 2 });
    expect(first.questions.map((q) => [q.action, q.by])).toEqual([
      ['archive', 'human'],
      ['archive', 'human'],
    ]);
    expect(await countIn(state.maildir, '.Archive')).toBe(2);
    expect(await countIn(state.maildir, '')).toBe(0);

    const again = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });
    expect(again.run.status).toBe('skipped'); // nothing new: nothing acted twice
    const acted = (await itemAudit(state.env)).filter((e) => e.outcome === 'acted');
    expect(acted.map((e) => [e.action, e.decided_by])).toEqual([
      ['archive', 'human'],
      ['archive', 'human'],
    ]);
    expect(new Set(acted.map((e) => e.item_id)).size).toBe(2);
  });

  const skipCases: [string, Parameters<typeof mcpClient>[0], string[], RegExp][] = [
    ['a host without elicitation', undefined, [], /no elicitation support/],
    ['a person who declines', async () => ({ action: 'decline' }), [], /declined/],
    [
      'a person who does not answer in time',
      () => new Promise(() => {}),
      ['--ask-timeout', '1'],
      /not reached/,
    ],
  ];
  it.each(skipCases)(
    '%s: every question is skipped, nothing is acted on',
    async (_name, elicit, args, reason) => {
      state = await stateWithInbox();
      client = mcpClient(elicit);
      await overStdio(client, state.env, args);

      const reply = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });

      expect(reply.run).toMatchObject({ status: 'completed', acted: 0, deferred: 2 });
      expect(reply.questions).toHaveLength(2);
      for (const q of reply.questions) {
        expect(q).toMatchObject({ action: 'skip', by: 'unreachable' });
        expect(q.reason).toMatch(reason);
      }
      expect(await countIn(state.maildir, '')).toBe(2); // untouched, where they were
      expect(await countIn(state.maildir, '.Archive')).toBe(0);
      expect((await itemAudit(state.env)).some((e) => e.outcome === 'acted')).toBe(false);
      expect(await cliJson<unknown[]>(['rules'], state.env)).toEqual([]); // nobody answered: nothing learned
    },
  );

  it('decide: the person confirms an answer in the host; without them it is skipped', async () => {
    state = await stateWithInbox();
    const waiting = await cliJson<{ status: string }>(['run', 'inbox'], state.env);
    expect(waiting.status).toBe('waiting');
    const confirming = mcpClient(async (request) => {
      const params = request.params as unknown as {
        requestedSchema: { properties: { q1: { default?: string } } };
      };
      return { action: 'accept', content: { q1: params.requestedSchema.properties.q1.default ?? 'skip' } };
    });
    client = confirming;
    await overStdio(client, state.env);
    const { pending } = await call<{ pending: { decision_id: string; sender: string; options: string[] }[] }>(
      client,
      'list_pending',
    );
    expect(pending).toHaveLength(2);

    const refused = await client.callTool({
      name: 'decide',
      arguments: { decision_id: pending[0]!.decision_id, action: 'explode' },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('is not an option');
    expect(await countIn(state.maildir, '')).toBe(2);

    const confirmed = await call<RunReply>(client, 'decide', {
      decision_id: pending[0]!.decision_id,
      action: 'archive',
    });
    expect(confirmed.questions).toMatchObject([{ action: 'archive', by: 'human' }]);
    await client.close();

    client = mcpClient(); // a host that cannot ask
    await overStdio(client, state.env);
    const skipped = await call<RunReply>(client, 'decide', {
      decision_id: pending[1]!.decision_id,
      action: 'archive',
    });
    expect(skipped.questions).toMatchObject([{ action: 'skip', by: 'unreachable' }]);
    expect(skipped.run.status).toBe('completed');
    expect(await countIn(state.maildir, '.Archive')).toBe(1);
    expect(await countIn(state.maildir, '')).toBe(1);
  });

  it('refuses bad options with one line and a non-zero exit', async () => {
    state = await stateWithInbox();
    const bad = await runCli(['mcp', '--ask-timeout', 'soon'], state.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('handoff: --ask-timeout soon is not a number of seconds above 0');
    const port = await runCli(['mcp', '--http', '--port', '99999'], { ...state.env, HANDOFF_API_KEY: 'k' });
    expect(port.stderr.trim()).toBe('handoff: --port 99999 is not a port (0-65535)');
    const noKey = await runCli(['mcp', '--http', '--port', '0'], state.env);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/^handoff: handoff mcp --http needs HANDOFF_API_KEY/);
  });
});

describe('handoff mcp --http (streamable HTTP on loopback, the API bearer key)', () => {
  const KEY = 'mcp-test-key-4f1d9a7c2b';

  it('refuses a request without the bearer key, or with a wrong one', async () => {
    state = await stateWithInbox({ HANDOFF_API_KEY: KEY });
    http = await startHttp(state.env);
    const init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    };
    const none = await fetch(http.url, init);
    expect(none.status).toBe(401);
    const wrong = await fetch(http.url, {
      ...init,
      headers: { ...init.headers, Authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'missing or wrong bearer token' });
    const stray = await fetch(http.url, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(stray.status).toBe(400); // the key is right, but there is no session to stream
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('with elicitation, the action happens once; the key is never stored or logged', async () => {
    state = await stateWithInbox({ HANDOFF_API_KEY: KEY });
    http = await startHttp(state.env, ['--ask-timeout', '5']);
    client = mcpClient(answerAll('archive'));
    await overHttp(client, http.url, KEY);

    const answered = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });
    const again = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });

    expect(answered.run).toMatchObject({ status: 'completed', acted: 2 });
    expect(again.run.status).toBe('skipped');
    expect(await countIn(state.maildir, '.Archive')).toBe(2);
    expect((await itemAudit(state.env)).filter((e) => e.outcome === 'acted')).toHaveLength(2);
    await client.close();
    await http.stop();
    const files = await fs.readdir(state.dir, { recursive: true });
    for (const f of files) {
      const p = path.join(state.dir, f);
      if ((await fs.stat(p)).isFile()) expect(await fs.readFile(p, 'utf8')).not.toContain(KEY);
    }
    expect(http.stderr()).not.toContain(KEY);
  });

  it('without elicitation support, every question is skipped and nothing is acted on', async () => {
    state = await stateWithInbox({ HANDOFF_API_KEY: KEY });
    http = await startHttp(state.env);
    client = mcpClient();
    await overHttp(client, http.url, KEY);

    const reply = await call<RunReply>(client, 'run_workflow', { workflow_id: 'inbox' });

    expect(reply.run).toMatchObject({ status: 'completed', acted: 0, deferred: 2 });
    expect(reply.questions.every((q) => q.action === 'skip' && q.by === 'unreachable')).toBe(true);
    expect(await countIn(state.maildir, '')).toBe(2);
    expect((await itemAudit(state.env)).some((e) => e.outcome === 'acted')).toBe(false);
  });
});

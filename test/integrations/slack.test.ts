/** Slack through its Web API directly, against a Slack-shaped server on 127.0.0.1. */
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { addEntry, setTemplate } from '../../shared/integrations/registry.ts';
import { SlackClient } from '../../shared/integrations/slack.ts';
import { integrationTools, type IntegrationToolset } from '../../shared/integrations/toolset.ts';
import type { ItemSource, SourceItem } from '../../shared/sources/source.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

const TOKEN = 'xoxb-test-000111222333-abcdef';

interface Request {
  method: string;
  url: string;
  authorization: string;
  body: unknown;
}

let slack: { url: string; requests: Request[]; server: Server };
let dir: string;
let store: JsonFileStore;
let credentials: Credentials;
let toolset: IntegrationToolset | undefined;

async function startFakeSlack() {
  const requests: Request[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const authorization = req.headers.authorization ?? '';
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization,
      body: text ? JSON.parse(text) : null,
    });
    const reply = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (authorization !== `Bearer ${TOKEN}`)
      return reply({ ok: false, error: `invalid_auth for ${authorization}` });
    if (req.url?.startsWith('/api/conversations.list'))
      return reply({
        ok: true,
        channels: [
          { id: 'C01', name: 'general', topic: 'x' },
          { id: 'C02', name: 'bugs' },
        ],
      });
    if (req.url === '/api/chat.postMessage') {
      const { channel } = JSON.parse(text) as { channel: string };
      if (channel === 'C404') return reply({ ok: false, error: 'channel_not_found' });
      return reply({ ok: true, channel, ts: '1700000000.000100' });
    }
    return reply({ ok: false, error: 'unknown_method' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, requests, server };
}

const item: SourceItem = {
  id: 'm1',
  ref: '/tmp/m1',
  sender: { address: 'ana@partner.example', name: 'Ana' },
  to: ['me@northwind.example'],
  subject: 'Outage at 9am',
  text: 'The API is down.',
  date: null,
  hints: [],
};
const context = { store: null as never, workflowId: 'wf', runId: 'run1', note: null, reasoning: null };
const nothing: ItemSource = {
  listRefs: async () => [],
  read: async (ref) => ({ ok: false, ref, reason: 'none' }),
  perform: async (action) => `inner ${action}`,
};

beforeEach(async () => {
  slack = await startFakeSlack();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-slack-'));
  store = new JsonFileStore(dir);
  credentials = new Credentials(store, LocalCipher.inStateDir(dir));
  await credentials.set('SLACK_BOT_TOKEN', new Secret(TOKEN));
  // The built-in entry, pointed at the local server instead of Slack's API.
  await addEntry(store, {
    name: 'slack',
    title: 'Slack (local)',
    transport: { kind: 'slack', base_url: slack.url, token: 'SLACK_BOT_TOKEN' },
    writes: ['post_message'],
    reads: ['list_channels'],
    irreversible: ['post_message'],
  });
});
afterEach(async () => {
  await toolset?.close();
  toolset = undefined;
  slack.server.closeAllConnections();
  await new Promise((resolve) => slack.server.close(resolve));
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Slack over its Web API', () => {
  it('gives the model list_channels and keeps post_message as an irreversible action', async () => {
    toolset = await integrationTools(store, credentials, { servers: ['slack'] });
    expect(toolset.tools.map((t) => t.name)).toEqual(['slack__list_channels']);
    expect(toolset.actions.get('slack__post_message')).toMatchObject({
      changesWorld: true,
      irreversible: true,
    });
    // Even a workflow that calls it reversible gets asked every time.
    const policy = toolset.gatePolicy(new Map([['slack__post_message', { irreversible: false }]]));
    expect(policy.get('slack__post_message')).toEqual({ irreversible: true });

    const channels = JSON.parse(String(await toolset.tools[0]!.invoke({ limit: 5 }))) as unknown;
    expect(channels).toEqual([
      { id: 'C01', name: 'general' },
      { id: 'C02', name: 'bugs' },
    ]);
    expect(slack.requests[0]).toMatchObject({
      method: 'GET',
      url: '/api/conversations.list?limit=5&types=public_channel%2Cprivate_channel',
      authorization: `Bearer ${TOKEN}`,
    });
  });

  it('posts only when the gate carries the action out, with arguments from the template', async () => {
    await setTemplate(store, 'slack', 'post_message', {
      channel: 'C02',
      text: ':rotating_light: {{item.subject}} (from {{item.sender}})',
    });
    toolset = await integrationTools(store, credentials, { actions: ['slack__post_message'] });
    expect(slack.requests).toEqual([]); // connecting posts nothing

    const source = toolset.wrapSource(nothing);
    expect(await source.perform('slack__post_message', item, context)).toBe(
      'slack__post_message: posted to C02 at 1700000000.000100',
    );
    expect(await source.perform('archive', item, context)).toBe('inner archive');
    expect(slack.requests.map((r) => r.body)).toEqual([
      { channel: 'C02', text: ':rotating_light: Outage at 9am (from ana@partner.example)' },
    ]);
  });

  it('refuses to post without a channel rather than guess one', async () => {
    toolset = await integrationTools(store, credentials, { actions: ['slack__post_message'] });
    await expect(toolset.wrapSource(nothing).perform('slack__post_message', item, context)).rejects.toThrow(
      /needs channel.*handoff integrations template slack post_message/,
    );
    expect(slack.requests).toEqual([]);
  });

  it("reports Slack's error, with the token redacted", async () => {
    const client = new SlackClient(new Secret(TOKEN), slack.url);
    await expect(client.postMessage('C404', 'hi')).rejects.toThrow(
      'slack chat.postMessage failed: channel_not_found',
    );
    const wrong = new SlackClient(new Secret('xoxb-wrong-token-998877'), slack.url);
    const error = await wrong.listChannels().catch((e: unknown) => e);
    expect(String(error)).toContain('invalid_auth for Bearer [redacted]');
    expect(String(error)).not.toContain('xoxb-wrong-token-998877');
  });
});

describe('the words a Slack message carries', () => {
  it('are shown as the template fills them, and the approved words are what is posted', async () => {
    await setTemplate(store, 'slack', 'post_message', { channel: 'C02', text: '{{item.subject}}: {{note}}' });
    toolset = await integrationTools(store, credentials, { actions: ['slack__post_message'] });
    const source = toolset.wrapSource(nothing);

    const drafted = source.wordsFor!('slack__post_message', item, context);
    expect(drafted).toEqual({
      action: 'slack__post_message',
      title: null,
      body: 'Outage at 9am: ',
      by: 'template',
    });
    expect(source.wordsFor!('archive', item, context)).toBeNull(); // the wrapped source's own actions: its words

    const words = { ...drafted!, body: 'The API is back since 9:40.', by: 'person' as const };
    await source.perform('slack__post_message', item, { ...context, note: 'a note is never posted', words });
    expect(slack.requests.map((r) => r.body)).toEqual([
      { channel: 'C02', text: 'The API is back since 9:40.' },
    ]);
  });
});

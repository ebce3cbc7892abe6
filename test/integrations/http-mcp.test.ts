/**
 * A remote MCP server over streamable HTTP on loopback, behind a bearer token,
 * like Linear's and GitHub's official ones.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Credentials } from '../../shared/credentials/credentials.ts';
import { LocalCipher } from '../../shared/credentials/local-cipher.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { addEntry, getEntry, statusOf } from '../../shared/integrations/registry.ts';
import { integrationTools, type IntegrationToolset } from '../../shared/integrations/toolset.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { startTicketServer, type TicketServer } from './support/http-mcp-server.ts';

const TOKEN = 'lin_api_http_test_7e1f0c3a9d2b';

let dir: string;
let store: JsonFileStore;
let credentials: Credentials;
let server: TicketServer;
let toolset: IntegrationToolset | undefined;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-http-'));
  store = new JsonFileStore(dir);
  credentials = new Credentials(store, LocalCipher.inStateDir(dir));
  server = await startTicketServer(TOKEN);
  await addEntry(store, {
    name: 'tickets',
    title: 'Tickets',
    transport: { kind: 'http', url: server.url, bearer: 'TICKETS_TOKEN' },
  });
});
afterEach(async () => {
  await toolset?.close();
  toolset = undefined;
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a streamable-HTTP MCP server behind a bearer token', () => {
  it('needs its credential before it is ready', async () => {
    const entry = await getEntry(store, 'tickets');
    expect(statusOf(entry, await credentials.names(), process.env)).toBe('needs credential TICKETS_TOKEN');
    toolset = await integrationTools(store, credentials, { servers: ['tickets'] });
    expect(toolset.problems).toEqual([{ server: 'tickets', status: 'needs credential TICKETS_TOKEN' }]);
    expect(server.authorizations).toEqual([]); // nothing was sent without it

    await credentials.set('TICKETS_TOKEN', new Secret(TOKEN));
    expect(statusOf(entry, await credentials.names(), process.env)).toBe('ready');
  });

  it('sends the bearer token, lists the tools and splits reads from writes', async () => {
    await credentials.set('TICKETS_TOKEN', new Secret(TOKEN));
    toolset = await integrationTools(store, credentials, { servers: ['tickets'] });

    expect(toolset.problems).toEqual([]);
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(new Set(server.authorizations)).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(toolset.tools.map((t) => t.name).sort()).toEqual([
      'tickets__check_scope',
      'tickets__find_ticket',
      'tickets__whoami',
    ]);
    expect(toolset.actions.get('tickets__create_ticket')).toMatchObject({
      changesWorld: true,
      irreversible: false,
    });
    // No annotations at all: it changes the world, and (the MCP default) destructively.
    expect(toolset.actions.get('tickets__close_ticket')).toMatchObject({
      changesWorld: true,
      irreversible: true,
    });

    const find = toolset.tools.find((t) => t.name === 'tickets__find_ticket')!;
    expect(await find.invoke({ text: 'x' })).toBe('[]');
  });

  it('redacts the token from what a tool returns and from its errors', async () => {
    await credentials.set('TICKETS_TOKEN', new Secret(TOKEN));
    toolset = await integrationTools(store, credentials, { servers: ['tickets'] });

    const whoami = toolset.tools.find((t) => t.name === 'tickets__whoami')!;
    expect(await whoami.invoke({})).toBe('you are calling with Bearer [redacted]');
    const check = toolset.tools.find((t) => t.name === 'tickets__check_scope')!;
    const error = await check.invoke({}).catch((e: unknown) => e);
    expect(String(error)).toContain('token [redacted] lacks scope');
    expect(String(error)).not.toContain(TOKEN);
  });

  it('reports a refused token without repeating it', async () => {
    const wrong = 'lin_api_wrong_value_0099';
    await credentials.set('TICKETS_TOKEN', new Secret(wrong));
    toolset = await integrationTools(store, credentials, { servers: ['tickets'] });

    expect(toolset.tools).toEqual([]);
    expect(toolset.problems).toHaveLength(1);
    expect(toolset.problems[0]!.status).toMatch(/^error: tickets: could not connect/);
    expect(JSON.stringify(toolset.problems)).not.toContain(wrong);
    expect(server.authorizations).toContain(`Bearer ${wrong}`); // the server did echo it back
  });

  it('reports a server that does not answer', async () => {
    await credentials.set('TICKETS_TOKEN', new Secret(TOKEN));
    await server.close();
    toolset = await integrationTools(store, credentials, { servers: ['tickets'], timeoutMs: 5_000 });
    expect(toolset.problems[0]).toMatchObject({
      server: 'tickets',
      status: expect.stringMatching(/^error: /),
    });
  });
});

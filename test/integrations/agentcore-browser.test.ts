/**
 * The AgentCore Browser entry. Only the control plane (Start/StopBrowserSession) is mocked:
 * the automation stream it answers with is the CDP endpoint of a real headless Chromium
 * (Debian's /usr/bin/chromium, as in test/browser/support.ts), reached through a local relay
 * that records the WebSocket upgrade, so the SigV4 headers can be checked.
 */
import 'aws-sdk-client-mock-jest';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  AccessDeniedException,
  BedrockAgentCoreClient,
  StartBrowserSessionCommand,
  StopBrowserSessionCommand,
} from '@aws-sdk/client-bedrock-agentcore';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { stubEnv, unstubAllEnvs } from '../support/env.ts';
import { BROWSE_MAX_CHARS, MANAGED_BROWSER } from '../../shared/integrations/agentcore-browser.ts';
import { connectAgentCore } from '../../shared/integrations/agentcore-code-interpreter.ts';
import { BUILTIN_ENTRIES, ServerEntrySchema } from '../../shared/integrations/servers.ts';
import { changesWorld, IntegrationError } from '../../shared/integrations/tool.ts';

import { CHROMIUM, HEADLESS_FLAGS } from '../support/chromium.ts';
const SESSION = '01JBROWSERSESSION000000000';
const ENV = { AWS_REGION: 'us-east-1' };
const KEY_ID = 'AKIDEXAMPLE0000000000';
const agentcore = mockClient(BedrockAgentCoreClient);
const BROWSER = BUILTIN_ENTRIES.find((e) => e.name === 'agentcore_browser')!;

interface Chromium {
  process: ChildProcess;
  dir: string;
  /** ws://127.0.0.1:PORT/devtools/browser/ID */
  endpoint: string;
}

/** Debian's Chromium, headless, its DevTools on a free port. Missing Chromium fails the test. */
async function launchChromium(): Promise<Chromium> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-chromium-'));
  const child = spawn(
    CHROMIUM,
    [
      ...HEADLESS_FLAGS,
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${dir}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${CHROMIUM} did not start: ${err}`)), 20_000);
    child.once('error', (e) => reject(new Error(`${CHROMIUM} could not be run: ${e.message}`)));
    child.once('exit', (code) => reject(new Error(`${CHROMIUM} exited (${code}): ${err}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
  return { process: child, dir, endpoint };
}

/** A TCP relay to `target` that keeps the first bytes (the upgrade request) of each connection. */
async function relay(target: URL): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    socket.once('data', (chunk: Buffer) => requests.push(chunk.toString('latin1')));
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}${target.pathname}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (just freed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let chromium: Chromium;
let stream: Awaited<ReturnType<typeof relay>>;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  chromium = await launchChromium();
  stream = await relay(new URL(chromium.endpoint));
  site = http.createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    if (req.url === '/long') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>Long</title><p>${'x'.repeat(BROWSE_MAX_CHARS + 500)}</p>`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><title>Quarterly report</title><body><h1>Revenue up</h1>' +
        '<p style="display:none">hidden text</p><script>document.body.append("Rendered by script")</script></body>',
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as net.AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await stream?.close();
  if (chromium) {
    const exited = new Promise((resolve) => chromium.process.once('exit', resolve));
    if (chromium.process.exitCode === null) chromium.process.kill();
    await exited;
    await fs.rm(chromium.dir, { recursive: true, force: true, maxRetries: 3 });
  }
});

beforeEach(() => {
  stubEnv('AWS_ACCESS_KEY_ID', KEY_ID);
  stubEnv('AWS_SECRET_ACCESS_KEY', 'secretsecretsecretsecretsecretsecretsecr');
  stubEnv('AWS_SESSION_TOKEN', 'session-token-example');
  stubEnv('AWS_PROFILE', undefined);
  agentcore.reset();
  agentcore.on(StartBrowserSessionCommand).callsFake((input: { browserIdentifier: string }) => ({
    browserIdentifier: input.browserIdentifier,
    sessionId: SESSION,
    createdAt: new Date(),
    streams: { automationStream: { streamEndpoint: stream.url, streamStatus: 'ENABLED' } },
  }));
  agentcore
    .on(StopBrowserSessionCommand)
    .resolves({ browserIdentifier: MANAGED_BROWSER, sessionId: SESSION });
});

afterEach(() => {
  unstubAllEnvs();
});

describe('the AgentCore Browser entry', () => {
  it('starts a session, connects over the signed automation stream, browses, and stops it', async () => {
    const before = stream.requests.length;
    const connection = await connectAgentCore(BROWSER, { env: ENV, timeoutMs: 10_000 });
    try {
      expect(agentcore).toHaveReceivedCommandTimes(StartBrowserSessionCommand, 1);
      expect(agentcore).toHaveReceivedCommandWith(StartBrowserSessionCommand, {
        browserIdentifier: 'aws.browser.v1',
        name: expect.stringMatching(/^handoff-[0-9a-f]{8}$/),
      });
      const upgrade = stream.requests[before]!;
      expect(upgrade).toMatch(/^GET \/devtools\/browser\/\S+ HTTP\/1\.1\r\n/);
      expect(upgrade).toMatch(
        new RegExp(
          `\\r\\nauthorization: AWS4-HMAC-SHA256 Credential=${KEY_ID}/\\d{8}/us-east-1/bedrock-agentcore/aws4_request, SignedHeaders=host;(x-amz-content-sha256;)?x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}\\r\\n`,
          'i',
        ),
      );
      expect(upgrade).toMatch(/\r\nx-amz-date: \d{8}T\d{6}Z\r\n/i);
      expect(upgrade).toMatch(/\r\nx-amz-security-token: session-token-example\r\n/i);

      expect(connection.tools.map((t) => t.name)).toEqual(['agentcore_browser__browse']);
      const [tool] = connection.tools;
      expect(tool!.hints).toEqual({ readOnlyHint: true, destructiveHint: false });
      expect(changesWorld(BROWSER, tool!)).toBe(false);

      const output = await tool!.invoke({ url: `${siteUrl}/report` });
      expect(output.isError).toBe(false);
      expect(output.text).toContain('Title: Quarterly report');
      expect(output.text).toContain(`URL: ${siteUrl}/report`);
      expect(output.text).toContain('Revenue up');
      expect(output.text).toContain('Rendered by script'); // a real browser runs the page's script
      expect(output.text).not.toContain('hidden text'); // only the visible text

      const long = await tool!.invoke({ url: `${siteUrl}/long` });
      expect(long.text).toContain('Title: Long');
      expect(long.text).toContain(`[truncated: ${BROWSE_MAX_CHARS + 500} characters in all]`);
      expect(long.text.length).toBeLessThan(BROWSE_MAX_CHARS + 200);
    } finally {
      await connection.close();
    }
    expect(agentcore).toHaveReceivedCommandTimes(StopBrowserSessionCommand, 1);
    expect(agentcore).toHaveReceivedCommandWith(StopBrowserSessionCommand, {
      browserIdentifier: 'aws.browser.v1',
      sessionId: SESSION,
    });
  }, 30_000);

  it('says in one line what went wrong with a bad URL, an unreachable one, or a page that never loads', async () => {
    const connection = await connectAgentCore(BROWSER, { env: ENV, timeoutMs: 2_000 });
    const [tool] = connection.tools;
    const oneLine = async (args: Record<string, unknown>): Promise<string> => {
      const error = await tool!.invoke(args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(IntegrationError);
      const message = (error as IntegrationError).message;
      expect(message).not.toContain('\n');
      return message;
    };
    try {
      expect(await oneLine({ url: 'not a url' })).toBe('browse needs url: an absolute http(s) URL');
      expect(await oneLine({ url: 'file:///etc/passwd' })).toBe('browse needs url: an absolute http(s) URL');
      expect(await oneLine({})).toBe('browse needs url: an absolute http(s) URL');
      expect(await oneLine({ url: `http://127.0.0.1:${await closedPort()}/` })).toMatch(
        /^agentcore_browser: browse failed: .*ERR_CONNECTION_REFUSED/,
      );
      expect(await oneLine({ url: `${siteUrl}/hang` })).toMatch(
        /^agentcore_browser: browse failed: (no answer within 2000 ms|TimeoutError: .*Timeout 2000ms exceeded)/,
      );
      // the session still works after a failed call
      expect((await tool!.invoke({ url: `${siteUrl}/` })).text).toContain('Revenue up');
    } finally {
      await connection.close();
    }
    expect(agentcore).toHaveReceivedCommandTimes(StopBrowserSessionCommand, 1);
  }, 30_000);

  it('uses the browser the entry names, and stops the session when the stream cannot be reached', async () => {
    const custom = ServerEntrySchema.parse({
      name: 'research_browser',
      title: 'Research browser',
      transport: { kind: 'agentcore', service: 'browser', identifier: 'research-AbC123' },
    });
    agentcore.on(StartBrowserSessionCommand).resolves({
      browserIdentifier: 'research-AbC123',
      sessionId: SESSION,
      createdAt: new Date(),
      streams: {
        automationStream: { streamEndpoint: 'ws://127.0.0.1:1/automation', streamStatus: 'ENABLED' },
      },
    });
    const error = await connectAgentCore(custom, { env: ENV, timeoutMs: 2_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IntegrationError);
    expect((error as Error).message).toMatch(
      /^research_browser: could not connect to the browser session: [^\n]*ECONNREFUSED[^\n]*$/,
    );
    expect(agentcore).toHaveReceivedCommandWith(StartBrowserSessionCommand, {
      browserIdentifier: 'research-AbC123',
    });
    expect(agentcore).toHaveReceivedCommandWith(StopBrowserSessionCommand, {
      browserIdentifier: 'research-AbC123',
      sessionId: SESSION,
    });
  });

  it('reports a refused session start as an IntegrationError and connects nothing', async () => {
    agentcore
      .on(StartBrowserSessionCommand)
      .rejects(new AccessDeniedException({ message: 'not allowed', $metadata: {} }));
    await expect(connectAgentCore(BROWSER, { env: ENV, timeoutMs: 2_000 })).rejects.toMatchObject({
      name: 'IntegrationError',
      message: 'agentcore_browser: could not start a session: AccessDeniedException: not allowed',
    });
    expect(agentcore).toHaveReceivedCommandTimes(StopBrowserSessionCommand, 0);
  });
});

import { randomUUID } from 'node:crypto';
import type { BedrockAgentCoreClient } from '@aws-sdk/client-bedrock-agentcore';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import type { ServerConnection } from './mcp-connect.ts';
import type { ServerEntry } from './servers.ts';
import { oneLineError, withinTime } from './time-limit.ts';
import { IntegrationError, qualifiedName, type ToolOutput } from './tool.ts';
import { needs } from '../config/needs.ts';

needs('agentcore'); // bedrock-agentcore:*BrowserSession* (no Lambda function is bound to it)

/** The AWS-managed Browser. */
export const MANAGED_BROWSER = 'aws.browser.v1';

/** The service name the automation stream's WebSocket upgrade is signed for (SigV4). */
export const BROWSER_SIGNING_SERVICE = 'bedrock-agentcore';

/** At most this many characters of a page's text are returned. */
export const BROWSE_MAX_CHARS = 20_000;

export interface BrowserOptions {
  /** AWS_REGION (when set) picks the region; otherwise the SDK's own chain does. */
  env: NodeJS.ProcessEnv;
  /** For starting the session, connecting to it, and each page load. */
  timeoutMs: number;
  /** A client made elsewhere (tests); by default one is made here, the SDK loaded only then. */
  client?: BedrockAgentCoreClient;
}

const BrowseInput = z.object({ url: z.string().min(1) });

/**
 * Starts a session on the entry's AgentCore Browser (the AWS-managed one unless the
 * transport names another), connects to its automation stream over CDP (the WebSocket
 * upgrade signed with SigV4) and offers one tool, `browse`. `close()` disconnects and
 * stops the session. Failures come back as IntegrationError.
 */
export async function connectBrowser(entry: ServerEntry, opts: BrowserOptions): Promise<ServerConnection> {
  const t = entry.transport;
  if (t.kind !== 'agentcore' || t.service !== 'browser')
    throw new IntegrationError(`${entry.name} is not an AgentCore Browser`);
  const identifier = t.identifier ?? MANAGED_BROWSER;
  const sdk = await import('@aws-sdk/client-bedrock-agentcore');
  const client =
    opts.client ?? new sdk.BedrockAgentCoreClient(opts.env.AWS_REGION ? { region: opts.env.AWS_REGION } : {});
  const failure = (what: string, error: unknown) =>
    new IntegrationError(`${entry.name}: ${what}: ${oneLineError(error)}`, { cause: error });

  let sessionId: string;
  let endpoint: string;
  try {
    const started = await withinTime(opts.timeoutMs, undefined, (signal) =>
      client.send(
        new sdk.StartBrowserSessionCommand({
          browserIdentifier: identifier,
          name: `handoff-${randomUUID().slice(0, 8)}`,
        }),
        { abortSignal: signal },
      ),
    );
    if (!started.sessionId) throw new Error('no session id in the answer');
    sessionId = started.sessionId;
    const stream = started.streams?.automationStream?.streamEndpoint;
    if (!stream) {
      await stop(client, sdk, identifier, sessionId, opts.timeoutMs);
      throw new Error('no automation stream endpoint in the answer');
    }
    endpoint = stream;
  } catch (error) {
    if (!opts.client) client.destroy();
    throw failure('could not start a session', error);
  }

  let browser: Browser;
  try {
    const headers = await signedHeaders(endpoint, client, opts.env);
    const { chromium } = await import('playwright-core');
    browser = await chromium.connectOverCDP(endpoint, { headers, timeout: opts.timeoutMs });
  } catch (error) {
    await stop(client, sdk, identifier, sessionId, opts.timeoutMs);
    if (!opts.client) client.destroy();
    throw failure('could not connect to the browser session', error);
  }

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= withinTime(opts.timeoutMs, undefined, () => browser.close())
      .catch(() => {}) // the stream goes with the session anyway
      .then(() => stop(client, sdk, identifier, sessionId, opts.timeoutMs))
      .finally(() => {
        if (!opts.client) client.destroy();
      }));

  const browse = async (args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput> => {
    const input = BrowseInput.safeParse(args);
    const url = input.success ? httpUrl(input.data.url) : undefined;
    if (!url) throw new IntegrationError('browse needs url: an absolute http(s) URL');
    if (closed) throw new IntegrationError(`${entry.name}: browse failed: the session is closed`);
    const load = async (limit: AbortSignal): Promise<ToolOutput> => {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = await context.newPage();
      const cut = () => void page.close().catch(() => {}); // ends a pending load
      limit.addEventListener('abort', cut, { once: true });
      try {
        if (limit.aborted) throw limit.reason;
        return await read(page, url, opts.timeoutMs);
      } finally {
        limit.removeEventListener('abort', cut);
        await page.close().catch(() => {});
      }
    };
    try {
      return await withinTime(opts.timeoutMs, signal, load);
    } catch (error) {
      throw failure('browse failed', error);
    }
  };

  return {
    tools: [
      {
        server: entry.name,
        tool: 'browse',
        name: qualifiedName(entry.name, 'browse'),
        description:
          'Opens a URL in an AgentCore Browser session (a real Chromium, so pages that need ' +
          'JavaScript work) and returns the page title and its visible text ' +
          `(at most ${BROWSE_MAX_CHARS} characters).`,
        inputSchema: {
          type: 'object',
          properties: { url: { type: 'string', description: 'The http(s) URL to open' } },
          required: ['url'],
        },
        // It only loads a page and reads it, like the web fetcher.
        hints: { readOnlyHint: true, destructiveHint: false },
        invoke: browse,
      },
    ],
    close,
  };
}

/** Loads `url` in `page` and returns its title and visible text, bounded. */
async function read(page: Page, url: string, timeoutMs: number): Promise<ToolOutput> {
  const response = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
  const title = await page.title();
  type Doc = { document: { body: { innerText: string } | null } };
  const text = await page.evaluate(() => (globalThis as unknown as Doc).document.body?.innerText ?? '');
  const status = response?.status();
  const isError = status !== undefined && status >= 400;
  const body =
    text.length > BROWSE_MAX_CHARS
      ? `${text.slice(0, BROWSE_MAX_CHARS)}\n[truncated: ${text.length} characters in all]`
      : text;
  const head = [`Title: ${title}`, `URL: ${page.url()}`, ...(isError ? [`Status: ${status}`] : [])];
  return { text: `${head.join('\n')}\n\n${body}`, isError };
}

/**
 * The headers that authenticate the automation stream's WebSocket upgrade: a SigV4
 * signature of `GET https://<host><path>` for the bedrock-agentcore service.
 */
async function signedHeaders(
  endpoint: string,
  client: BedrockAgentCoreClient,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, string>> {
  const url = new URL(endpoint);
  if (url.protocol !== 'wss:' && url.protocol !== 'ws:')
    throw new Error(`the automation stream is not a WebSocket URL (${url.protocol})`);
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const signer = new SignatureV4({
    service: BROWSER_SIGNING_SERVICE,
    region: env.AWS_REGION || (await client.config.region()),
    credentials: client.config.credentials,
    sha256: client.config.sha256,
  });
  const signed = await signer.sign({
    method: 'GET',
    protocol: 'https:',
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { host: url.host },
  });
  // The WebSocket client sets Host itself (to the same value).
  return Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host'));
}

/** Stops the session; a failure is dropped (the session ends by itself at its timeout anyway). */
async function stop(
  client: BedrockAgentCoreClient,
  sdk: typeof import('@aws-sdk/client-bedrock-agentcore'),
  browserIdentifier: string,
  sessionId: string,
  timeoutMs: number,
): Promise<void> {
  await withinTime(timeoutMs, undefined, (signal) =>
    client.send(new sdk.StopBrowserSessionCommand({ browserIdentifier, sessionId }), { abortSignal: signal }),
  ).catch(() => {});
}

function httpUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

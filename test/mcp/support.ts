/**
 * A state directory with one workflow over a real Maildir of two messages the offline
 * model is unsure about, and the official MCP client talking to `handoff mcp` as a real
 * child process (stdio), or to `handoff mcp --http` over streamable HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { cliJson } from '../support/cli.ts';
import { mail, workflowYaml } from '../support/engine-fixture.ts';
import { childEnv } from '../support/child-env.ts';

export const BIN = path.resolve(import.meta.dirname, '../../bin/handoff.js');

export interface State {
  dir: string;
  maildir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

/** A fresh state directory with the `inbox` workflow over two unsure messages. */
export async function stateWithInbox(extraEnv: Record<string, string> = {}): Promise<State> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-mcp-'));
  const maildir = path.join(dir, 'Maildir');
  await writeMaildir(maildir, [
    neutral('ana@partnerco.example', 'Statement for the quarter'),
    neutral('tomi@fastmail.example', 'Following up'),
  ]);
  await fs.writeFile(path.join(dir, 'inbox.yaml'), workflowYaml(maildir));
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state'), ...extraEnv };
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml')], env);
  return { dir, maildir, env, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** How many messages are in a Maildir folder (`''` is the inbox). */
export async function countIn(
  maildir: string,
  folder: '' | '.Archive' | '.Drafts' | '.Trash',
): Promise<number> {
  let n = 0;
  for (const sub of ['new', 'cur'])
    n += (await fs.readdir(path.join(maildir, folder, sub)).catch(() => [])).length;
  return n;
}

export type Elicit = (request: ElicitRequest) => Promise<ElicitResult>;

/** The official MCP client; with `elicit`, it declares elicitation and answers with it. */
export function mcpClient(elicit?: Elicit): Client {
  const client = new Client(
    { name: 'test-host', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: {} } } : { capabilities: {} },
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request));
  return client;
}

/** Answers every question of a form with `action`. */
export function answerAll(action: string, note?: string): Elicit {
  return async (request) => {
    const params = request.params as { requestedSchema: { properties: Record<string, unknown> } };
    const content: Record<string, string> = {};
    for (const key of Object.keys(params.requestedSchema.properties))
      if (/^q\d+$/.test(key)) content[key] = action;
    if (note) content.note = note;
    return { action: 'accept', content };
  };
}

/** Connects `client` to `handoff mcp` over stdio: a real child process of the CLI. */
export async function overStdio(
  client: Client,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: childEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  await client.connect(transport);
  return { stderr: () => stderr };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `handoff mcp --http --port 0` as a child process and waits for its address. */
export async function startHttp(env: Record<string, string>, args: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      stderr += d;
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    child.on('exit', (code) => reject(new Error(`handoff mcp --http exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Connects `client` to the HTTP server with the bearer key. */
export async function overHttp(client: Client, url: string, key: string): Promise<void> {
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
}

/** A tool's structured result. */
export async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { redact, type Secret } from '../credentials/secret.ts';
import type { ServerEntry } from './servers.ts';
import { IntegrationError, qualifiedName, type IntegrationTool, type ToolOutput } from './tool.ts';
import { errorMessage } from '../errors/index.ts';

/** A connected server and its tools; `close()` ends the child process or HTTP session. */
export interface ServerConnection {
  tools: IntegrationTool[];
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** PATH and friends for a stdio child; nothing else of this process's environment is passed on. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

const STDERR_TAIL = 2_000;

/**
 * Connects to an MCP entry (stdio or streamable HTTP), filling in its credentials:
 * as environment variables of the child, or as a bearer token. Failures come back
 * as IntegrationError with every credential redacted.
 */
export async function connectMcp(
  entry: ServerEntry,
  secrets: ReadonlyMap<string, Secret>,
  opts: ConnectOptions,
): Promise<ServerConnection> {
  const all = [...secrets.values()];
  let stderrTail = '';
  const t = entry.transport;
  let transport: StdioClientTransport | StreamableHTTPClientTransport;
  if (t.kind === 'stdio') {
    const credentialEnv = Object.fromEntries(
      Object.entries(t.credential_env).map(([variable, name]) => [variable, secrets.get(name)!.reveal()]),
    );
    const stdio = new StdioClientTransport({
      command: t.command,
      args: t.args,
      env: { ...getDefaultEnvironment(), ...pathOf(opts.env), ...t.env, ...credentialEnv },
      // Piped and kept only as a short redacted tail for error messages: a child's stderr never reaches our logs.
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    transport = stdio;
  } else if (t.kind === 'http') {
    const headers: Record<string, string> = t.bearer
      ? { Authorization: `Bearer ${secrets.get(t.bearer)!.reveal()}` }
      : {};
    transport = new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers } });
  } else {
    throw new IntegrationError(`${entry.name} is not an MCP server`);
  }
  // The SDK client itself, not a tool provider: every tool is wrapped so it can be gated and redacted.
  // Server log messages and tool-list changes are not listened to: the tool list is read once per run.
  const client = new Client({ name: 'handoff', version: '1' });
  const close = () => client.close().catch(() => {});
  const failure = (what: string, error: unknown) => {
    const message = errorMessage(error);
    const tail = stderrTail.trim().split('\n').slice(-3).join(' | ');
    return new IntegrationError(
      redact(`${entry.name}: ${what}: ${message}${tail ? ` (stderr: ${tail})` : ''}`, all),
    );
  };
  const mcpTools: McpTool[] = [];
  try {
    await withTimeout(client.connect(transport as never), opts.timeoutMs, 'no answer');
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: opts.timeoutMs });
      mcpTools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (error) {
    await close();
    throw failure('could not connect', error);
  }
  const tools = mcpTools.map((mcpTool): IntegrationTool => ({
    server: entry.name,
    tool: mcpTool.name,
    name: qualifiedName(entry.name, mcpTool.name),
    description: mcpTool.description ?? `The ${mcpTool.name} tool of ${entry.title}`,
    inputSchema: mcpTool.inputSchema as Record<string, unknown>,
    hints: hintsOf(mcpTool.annotations),
    invoke: async (args, signal) => {
      try {
        const result = await client.callTool({ name: mcpTool.name, arguments: args }, undefined, {
          timeout: opts.timeoutMs,
          ...(signal ? { signal } : {}),
        });
        return outputOf(result);
      } catch (error) {
        throw failure(`${mcpTool.name} failed`, error);
      }
    },
  }));
  return { tools, close };
}

function pathOf(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.PATH ? { PATH: env.PATH } : {};
}

function hintsOf(annotations: unknown): IntegrationTool['hints'] {
  const a = (annotations ?? {}) as Record<string, unknown>;
  return {
    ...(typeof a.readOnlyHint === 'boolean' ? { readOnlyHint: a.readOnlyHint } : {}),
    ...(typeof a.destructiveHint === 'boolean' ? { destructiveHint: a.destructiveHint } : {}),
  };
}

/** An MCP call result as text: text parts as they are, other parts named, not inlined. */
export function outputOf(raw: unknown): ToolOutput {
  const result = (raw ?? {}) as { content?: unknown[]; isError?: boolean; structuredContent?: unknown };
  const parts = (result.content ?? []).map((item) => {
    const c = (item ?? {}) as Record<string, unknown>;
    if (c.type === 'text' && typeof c.text === 'string') return c.text;
    if (c.type === 'resource') {
      const r = (c.resource ?? {}) as Record<string, unknown>;
      return typeof r.text === 'string' ? r.text : `[resource ${String(r.uri ?? '')}]`;
    }
    if (c.type === 'resource_link') return `[link ${String(c.uri ?? '')}]`;
    return `[${String(c.type ?? 'content')} omitted]`;
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return { text: parts.join('\n'), isError: result.isError === true };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

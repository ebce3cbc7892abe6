import { randomUUID } from 'node:crypto';
import type { BedrockAgentCoreClient, CodeInterpreterStreamOutput } from '@aws-sdk/client-bedrock-agentcore';
import { z } from 'zod';
import { connectBrowser } from './agentcore-browser.ts';
import type { ServerConnection } from './mcp-connect.ts';
import type { ServerEntry } from './servers.ts';
import { oneLineError, withinTime } from './time-limit.ts';
import { IntegrationError, qualifiedName, type ToolOutput } from './tool.ts';
import { needs } from '../config/needs.ts';

needs('agentcore'); // bedrock-agentcore:*CodeInterpreter* (no Lambda function is bound to it)

/** The AWS-managed Code Interpreter: its network mode is SANDBOX (no internet access). */
export const MANAGED_CODE_INTERPRETER = 'aws.codeinterpreter.v1';

export interface CodeInterpreterOptions {
  /** AWS_REGION (when set) picks the region; otherwise the SDK's own chain does. */
  env: NodeJS.ProcessEnv;
  /** For starting the session, and for each call. */
  timeoutMs: number;
  /** A client made elsewhere (tests); by default one is made here, the SDK loaded only then. */
  client?: BedrockAgentCoreClient;
}

const ExecuteCodeInput = z.object({
  code: z.string().min(1),
  language: z.enum(['python', 'javascript', 'typescript']).default('python'),
});

/** Connects an AgentCore entry: the Browser (agentcore-browser.ts) or the Code Interpreter. */
export function connectAgentCore(
  entry: ServerEntry,
  opts: CodeInterpreterOptions,
): Promise<ServerConnection> {
  const t = entry.transport;
  if (t.kind === 'agentcore' && t.service === 'browser') return connectBrowser(entry, opts);
  return connectCodeInterpreter(entry, opts);
}

/**
 * Starts a session on the entry's AgentCore Code Interpreter (the AWS-managed one unless
 * the transport names another) and offers one tool, `execute_code`. `close()` stops the
 * session. Failures come back as IntegrationError.
 */
export async function connectCodeInterpreter(
  entry: ServerEntry,
  opts: CodeInterpreterOptions,
): Promise<ServerConnection> {
  const t = entry.transport;
  if (t.kind !== 'agentcore' || t.service !== 'code_interpreter')
    throw new IntegrationError(`${entry.name} is not an AgentCore Code Interpreter`);
  const identifier = t.identifier ?? MANAGED_CODE_INTERPRETER;
  const sdk = await import('@aws-sdk/client-bedrock-agentcore');
  const client =
    opts.client ?? new sdk.BedrockAgentCoreClient(opts.env.AWS_REGION ? { region: opts.env.AWS_REGION } : {});
  const failure = (what: string, error: unknown) =>
    new IntegrationError(`${entry.name}: ${what}: ${oneLineError(error)}`, { cause: error });

  let sessionId: string;
  try {
    const started = await client.send(
      new sdk.StartCodeInterpreterSessionCommand({
        codeInterpreterIdentifier: identifier,
        name: `handoff-${randomUUID().slice(0, 8)}`,
      }),
      { abortSignal: AbortSignal.timeout(opts.timeoutMs) },
    );
    if (!started.sessionId) throw new Error('no session id in the answer');
    sessionId = started.sessionId;
  } catch (error) {
    if (!opts.client) client.destroy();
    throw failure('could not start a session', error);
  }

  let stopped: Promise<void> | undefined;
  const close = () =>
    (stopped ??= client
      .send(new sdk.StopCodeInterpreterSessionCommand({ codeInterpreterIdentifier: identifier, sessionId }), {
        abortSignal: AbortSignal.timeout(opts.timeoutMs),
      })
      .then(
        () => {},
        () => {}, // the session ends by itself at its timeout anyway
      )
      .finally(() => {
        if (!opts.client) client.destroy();
      }));

  const executeCode = async (args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput> => {
    const input = ExecuteCodeInput.safeParse(args);
    if (!input.success)
      throw new IntegrationError(
        'execute_code needs code (a string) and a language: python, javascript or typescript',
      );
    try {
      return await withinTime(opts.timeoutMs, signal, async (limit) => {
        const response = await client.send(
          new sdk.InvokeCodeInterpreterCommand({
            codeInterpreterIdentifier: identifier,
            sessionId,
            name: 'executeCode',
            arguments: { code: input.data.code, language: input.data.language },
          }),
          { abortSignal: limit },
        );
        return gather(response.stream);
      });
    } catch (error) {
      throw failure('execute_code failed', error);
    }
  };

  return {
    tools: [
      {
        server: entry.name,
        tool: 'execute_code',
        name: qualifiedName(entry.name, 'execute_code'),
        description:
          'Runs code in an isolated AgentCore Code Interpreter session and returns its output. ' +
          'State (variables, files) is kept between calls in this run.',
        inputSchema: {
          type: 'object',
          properties: {
            code: { type: 'string', description: 'The code to run' },
            language: {
              type: 'string',
              enum: ['python', 'javascript', 'typescript'],
              description: 'Default python',
            },
          },
          required: ['code'],
        },
        // Read-only only on the managed interpreter: its sandbox has no network, and the
        // session is thrown away at close, so code run there cannot reach the world. A custom
        // interpreter may have public or VPC network: not vouched for (list it under `reads`).
        hints: identifier === MANAGED_CODE_INTERPRETER ? { readOnlyHint: true, destructiveHint: false } : {},
        invoke: executeCode,
      },
    ],
    close,
  };
}

/** The streamed results as one output: their text parts in order; an error if any says so. */
async function gather(stream: AsyncIterable<CodeInterpreterStreamOutput> | undefined): Promise<ToolOutput> {
  const parts: string[] = [];
  let isError = false;
  for await (const event of stream ?? []) {
    if (event.result) {
      isError ||= event.result.isError === true;
      const texts = (event.result.content ?? []).map((c) =>
        c.type === 'text' ? (c.text ?? '') : (c.resource?.text ?? `[${c.type ?? 'content'} omitted]`),
      );
      const s = event.result.structuredContent;
      if (texts.length === 0 && s) texts.push([s.stdout, s.stderr].filter(Boolean).join('\n'));
      parts.push(...texts);
      continue;
    }
    const [kind, detail] = Object.entries(event).find(([, v]) => v !== undefined) ?? ['unknown', undefined];
    const message = (detail as { message?: unknown } | undefined)?.message;
    throw new Error(`${kind}${typeof message === 'string' ? `: ${message}` : ''}`);
  }
  return { text: parts.join('\n'), isError };
}

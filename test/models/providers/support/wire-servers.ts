/**
 * Local servers that speak each provider's wire format and play a scripted model.
 * They stream exactly as the real APIs do (OpenAI chat-completion chunks with
 * `tool_calls` deltas and a final usage chunk; Anthropic's message_start …
 * message_stop events) and report `usage` from their own count: characters of the
 * request's messages, system and tools divided by 4 (input), characters of the text
 * or tool arguments they generate divided by 4 (output).
 */
import type { ServerResponse } from 'node:http';
import type { PlannedTurn, TurnInput } from '../../../../shared/models/turn-model.ts';
import { fromAnthropic, fromOpenAI, type Policy } from './conversation.ts';
import {
  openSse,
  pieces,
  sendJson,
  sseFrame,
  startServer,
  tokensOf,
  type LocalServer,
  type RecordedRequest,
} from './http-server.ts';

type Json = Record<string, unknown>;

/** What a server answers one request with. */
export type ServerReply =
  /** Stream this turn; `rawArguments[i]` replaces call i's arguments text (a slip). */
  | { turn: PlannedTurn; rawArguments?: (string | undefined)[] }
  /** An HTTP error before any stream. */
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** A stream that opens, then carries an `event: error` frame (as Groq does mid-stream). */
  | { streamError: unknown };

export interface ScriptedServerOptions {
  policy: Policy;
  /** Replaces the policy's answer for request `n` (1-based) when it returns a reply. */
  intercept?: (n: number, input: TurnInput, request: RecordedRequest) => ServerReply | undefined;
  model?: string;
}

export interface Usage {
  input: number;
  output: number;
}

export interface ScriptedServer extends LocalServer {
  /** The usage the server reported, one entry per streamed turn. */
  usage: Usage[];
}

function callId(prefix: string, n: number, i: number): string {
  return `${prefix}${n.toString(36)}x${i}${Math.random().toString(36).slice(2, 8)}`;
}

function requestChars(...parts: unknown[]): number {
  return parts.reduce<number>((sum, part) => sum + (part === undefined ? 0 : JSON.stringify(part).length), 0);
}

function outputText(turn: PlannedTurn, raw: (string | undefined)[] = []): { chars: number; args: string[] } {
  if ('text' in turn) return { chars: turn.text.length, args: [] };
  const args = turn.toolCalls.map((call, i) => raw[i] ?? JSON.stringify(call.input));
  return { chars: turn.toolCalls.reduce((s, c, i) => s + c.name.length + args[i]!.length, 0), args };
}

// ---------------------------------------------------------------------------
// OpenAI chat completions (also Groq, vLLM, Ollama, llama.cpp)
// ---------------------------------------------------------------------------

function streamOpenAITurn(
  res: ServerResponse,
  body: Json,
  n: number,
  reply: { turn: PlannedTurn; rawArguments?: (string | undefined)[] },
  usage: Usage,
): void {
  const id = `chatcmpl-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = String(body.model ?? 'scripted');
  const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
  const chunk = (delta: Json, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_local',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  openSse(res);
  const { turn } = reply;
  if ('text' in turn) {
    res.write(sseFrame(chunk({ role: 'assistant', content: '', refusal: null })));
    for (const piece of pieces(turn.text)) res.write(sseFrame(chunk({ content: piece })));
    res.write(sseFrame(chunk({}, 'stop')));
  } else {
    const { args } = outputText(turn, reply.rawArguments);
    res.write(sseFrame(chunk({ role: 'assistant', content: null })));
    turn.toolCalls.forEach((call, index) => {
      res.write(
        sseFrame(
          chunk({
            tool_calls: [
              {
                index,
                id: callId('call_', n, index),
                type: 'function',
                function: { name: call.name, arguments: '' },
              },
            ],
          }),
        ),
      );
      for (const piece of pieces(args[index]!))
        res.write(sseFrame(chunk({ tool_calls: [{ index, function: { arguments: piece } }] })));
    });
    res.write(sseFrame(chunk({}, 'tool_calls')));
  }
  if (includeUsage)
    res.write(
      sseFrame({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        system_fingerprint: 'fp_local',
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      }),
    );
  res.write('data: [DONE]\n\n');
  res.end();
}

/** An OpenAI-compatible chat-completions server on 127.0.0.1 (POST …/chat/completions). */
export async function openAIServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const usage: Usage[] = [];
  let n = 0;
  const server = await startServer((request, res) => {
    if (!request.path.endsWith('/chat/completions'))
      return sendJson(res, 404, {
        error: { message: `no route ${request.path}`, type: 'invalid_request_error' },
      });
    n += 1;
    const input = fromOpenAI(request.body);
    const reply = opts.intercept?.(n, input, request) ?? { turn: opts.policy(input) };
    if ('status' in reply) return sendJson(res, reply.status, reply.body, reply.headers);
    if ('streamError' in reply) {
      openSse(res);
      res.write(sseFrame(reply.streamError, 'error'));
      res.end();
      return;
    }
    const counted = {
      input: tokensOf(requestChars(request.body.messages, request.body.tools)),
      output: tokensOf(outputText(reply.turn, reply.rawArguments).chars),
    };
    usage.push(counted);
    streamOpenAITurn(res, request.body, n, reply, counted);
  });
  return { ...server, usage };
}

// ---------------------------------------------------------------------------
// Anthropic messages
// ---------------------------------------------------------------------------

function streamAnthropicTurn(
  res: ServerResponse,
  body: Json,
  n: number,
  reply: { turn: PlannedTurn; rawArguments?: (string | undefined)[] },
  usage: Usage,
): void {
  const send = (type: string, data: Json) => res.write(sseFrame({ type, ...data }, type));
  openSse(res);
  send('message_start', {
    message: {
      id: `msg_local_${n}`,
      type: 'message',
      role: 'assistant',
      content: [],
      model: String(body.model ?? 'scripted'),
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  const { turn } = reply;
  if ('text' in turn) {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('ping', {});
    for (const piece of pieces(turn.text))
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
    send('content_block_stop', { index: 0 });
  } else {
    const { args } = outputText(turn, reply.rawArguments);
    turn.toolCalls.forEach((call, index) => {
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: callId('toolu_', n, index), name: call.name, input: {} },
      });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const piece of pieces(args[index]!))
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      send('content_block_stop', { index });
    });
  }
  send('message_delta', {
    delta: { stop_reason: 'text' in turn ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send('message_stop', {});
  res.end();
}

/** An Anthropic messages server on 127.0.0.1 (POST /v1/messages). */
export async function anthropicServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const usage: Usage[] = [];
  let n = 0;
  const server = await startServer((request, res) => {
    if (!request.path.startsWith('/v1/messages'))
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: request.path } });
    n += 1;
    const input = fromAnthropic(request.body);
    const reply = opts.intercept?.(n, input, request) ?? { turn: opts.policy(input) };
    if ('status' in reply) return sendJson(res, reply.status, reply.body, reply.headers);
    if ('streamError' in reply) {
      openSse(res);
      res.write(sseFrame(reply.streamError, 'error'));
      res.end();
      return;
    }
    const counted = {
      input: tokensOf(requestChars(request.body.system, request.body.messages, request.body.tools)),
      output: tokensOf(outputText(reply.turn, reply.rawArguments).chars),
    };
    usage.push(counted);
    streamAnthropicTurn(res, request.body, n, reply, counted);
  });
  return { ...server, usage };
}

/** Groq's rejection of a turn whose tool call it could not parse. */
export function toolUseFailed(failedGeneration: string): ServerReply {
  return {
    status: 400,
    body: {
      error: {
        message:
          "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        failed_generation: failedGeneration,
      },
    },
  };
}

/**
 * Reads a request in each provider's wire format back into the SDK's message shapes,
 * so a server can choose its turn with the same code as the offline model
 * (`lastToolResults`, `OfflineModel.plan`) or a test's script.
 */
import type { Message, StreamOptions } from '@strands-agents/sdk';
import { OfflineModel } from '../../../../shared/models/offline/offline-model.ts';
import { lastToolResults, type PlannedTurn, type TurnInput } from '../../../../shared/models/turn-model.ts';
import { replyWriterTurn, type Script } from '../../../support/scripted-model.ts';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/** Chooses a turn from the conversation a server received. */
export type Policy = (input: TurnInput) => PlannedTurn;

/** A test's script (see test/support/scripted-model.ts) as a server policy. */
export function scriptPolicy(script: Script): Policy {
  return (input) => replyWriterTurn(input) ?? script(lastToolResults(input.messages), input);
}

class OfflinePolicy extends OfflineModel {
  decide(input: TurnInput): PlannedTurn {
    return this.plan(input);
  }
}

/** The offline model's own judgement, served over the wire. */
export function offlinePolicy(): Policy {
  const model = new OfflinePolicy();
  return (input) => model.decide(input);
}

function message(role: 'user' | 'assistant', content: Block[]): Message {
  return { role, content } as unknown as Message;
}

function options(system: string, tools: string[]): StreamOptions {
  return {
    systemPrompt: system,
    toolSpecs: tools.map((name) => ({ name, description: name })),
  };
}

function textResult(toolUseId: string, text: string, status: string): Block {
  return { type: 'toolResultBlock', toolUseId, status, content: [{ type: 'textBlock', text }] };
}

function parseArgs(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return { raw: text };
  }
}

/** OpenAI chat completions: system / user / assistant (tool_calls) / tool messages. */
export function fromOpenAI(body: Json): TurnInput {
  const messages: Message[] = [];
  let system = '';
  let pendingResults: Block[] = [];
  const flush = () => {
    if (pendingResults.length > 0) messages.push(message('user', pendingResults));
    pendingResults = [];
  };
  for (const raw of (body.messages as Json[] | undefined) ?? []) {
    const role = raw.role as string;
    if (role === 'system') {
      system += String(raw.content ?? '');
      continue;
    }
    if (role === 'tool') {
      const text = String(raw.content ?? '');
      pendingResults.push(
        textResult(
          String(raw.tool_call_id),
          text.replace(/^\[ERROR\] /, ''),
          text.startsWith('[ERROR]') ? 'error' : 'success',
        ),
      );
      continue;
    }
    flush();
    if (role === 'user') {
      const content = raw.content;
      const text =
        typeof content === 'string'
          ? content
          : ((content as Json[] | undefined) ?? []).map((p) => String(p.text ?? '')).join('');
      messages.push(message('user', [{ type: 'textBlock', text }]));
    } else if (role === 'assistant') {
      const blocks: Block[] = [];
      if (typeof raw.content === 'string' && raw.content !== '')
        blocks.push({ type: 'textBlock', text: raw.content });
      for (const call of (raw.tool_calls as Json[] | undefined) ?? []) {
        const fn = call.function as Json;
        blocks.push({
          type: 'toolUseBlock',
          toolUseId: call.id,
          name: fn.name,
          input: parseArgs(fn.arguments),
        });
      }
      messages.push(message('assistant', blocks));
    }
  }
  flush();
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => String((t.function as Json).name));
  return { messages, options: options(system, tools) };
}

function anthropicResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return ((content as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
}

/** Anthropic messages: content blocks text / tool_use / tool_result. */
export function fromAnthropic(body: Json): TurnInput {
  const system =
    typeof body.system === 'string'
      ? body.system
      : ((body.system as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
  const messages: Message[] = [];
  for (const raw of (body.messages as Json[] | undefined) ?? []) {
    const content =
      typeof raw.content === 'string' ? [{ type: 'text', text: raw.content }] : (raw.content as Json[]);
    const blocks: Block[] = [];
    for (const block of content) {
      if (block.type === 'text') blocks.push({ type: 'textBlock', text: block.text });
      else if (block.type === 'tool_use')
        blocks.push({ type: 'toolUseBlock', toolUseId: block.id, name: block.name, input: block.input });
      else if (block.type === 'tool_result')
        blocks.push(
          textResult(
            String(block.tool_use_id),
            anthropicResultText(block.content),
            block.is_error ? 'error' : 'success',
          ),
        );
    }
    messages.push(message(raw.role === 'assistant' ? 'assistant' : 'user', blocks));
  }
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => String(t.name));
  return { messages, options: options(system, tools) };
}

/** Bedrock Converse: content blocks text / toolUse / toolResult. */
export function fromBedrock(input: Json): TurnInput {
  const system = ((input.system as Json[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('');
  const messages: Message[] = [];
  for (const raw of (input.messages as Json[] | undefined) ?? []) {
    const blocks: Block[] = [];
    for (const block of (raw.content as Json[] | undefined) ?? []) {
      if (typeof block.text === 'string') blocks.push({ type: 'textBlock', text: block.text });
      else if (block.toolUse) {
        const use = block.toolUse as Json;
        blocks.push({ type: 'toolUseBlock', toolUseId: use.toolUseId, name: use.name, input: use.input });
      } else if (block.toolResult) {
        const result = block.toolResult as Json;
        const parts = (result.content as Json[] | undefined) ?? [];
        const text = parts
          .map((p) => (p.json !== undefined ? JSON.stringify(p.json) : String(p.text ?? '')))
          .join('');
        blocks.push(textResult(String(result.toolUseId), text, String(result.status ?? 'success')));
      }
    }
    messages.push(message(raw.role === 'assistant' ? 'assistant' : 'user', blocks));
  }
  const toolConfig = input.toolConfig as { tools?: { toolSpec?: { name?: string } }[] } | undefined;
  const tools = (toolConfig?.tools ?? []).map((t) => String(t.toolSpec?.name));
  return { messages, options: options(system, tools) };
}

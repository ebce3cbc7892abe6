import { randomUUID } from 'node:crypto';
import {
  Model,
  type BaseModelConfig,
  type Message,
  type ModelStreamEvent,
  type StreamOptions,
} from '@strands-agents/sdk';

/** One planned model turn: some tool calls, or a final text. */
export type PlannedTurn =
  { toolCalls: { name: string; input: Record<string, unknown> }[] } | { text: string };

/** What a turn may read: the conversation and the call's options. */
export interface TurnInput {
  messages: Message[];
  options: StreamOptions | undefined;
}

/** Measurements of the last turns, for benchmarks and the token budget. */
export interface TurnStats {
  turns: number;
  lastInputChars: number;
  maxInputChars: number;
}

/**
 * A `Model` that plans each turn in code and streams it in the SDK's event format.
 * Turns are chosen from the message history alone, so the model is stateless across
 * a snapshot restore.
 */
export abstract class TurnModel extends Model<BaseModelConfig> {
  private config: BaseModelConfig;
  readonly stats: TurnStats = { turns: 0, lastInputChars: 0, maxInputChars: 0 };

  constructor(modelId: string) {
    super();
    this.config = { modelId };
  }

  updateConfig(modelConfig: BaseModelConfig): void {
    this.config = { ...this.config, ...modelConfig };
  }

  getConfig(): BaseModelConfig {
    return this.config;
  }

  protected abstract plan(input: TurnInput): PlannedTurn;

  async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const inputChars = JSON.stringify(messages).length + JSON.stringify(options?.systemPrompt ?? '').length;
    this.stats.turns += 1;
    this.stats.lastInputChars = inputChars;
    this.stats.maxInputChars = Math.max(this.stats.maxInputChars, inputChars);
    const turn = this.plan({ messages, options });
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    let outputChars = 0;
    if ('text' in turn) {
      outputChars = turn.text.length;
      yield { type: 'modelContentBlockStartEvent' };
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: turn.text } };
      yield { type: 'modelContentBlockStopEvent' };
    } else {
      let index = 0;
      for (const call of turn.toolCalls) {
        const input = JSON.stringify(call.input);
        outputChars += input.length;
        const toolUseId = `tooluse_${randomUUID().slice(0, 8)}_${index++}`;
        yield {
          type: 'modelContentBlockStartEvent',
          start: { type: 'toolUseStart', name: call.name, toolUseId },
        };
        yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input } };
        yield { type: 'modelContentBlockStopEvent' };
      }
    }
    yield { type: 'modelMessageStopEvent', stopReason: 'text' in turn ? 'endTurn' : 'toolUse' };
    const inputTokens = Math.ceil(inputChars / 4);
    const outputTokens = Math.ceil(outputChars / 4);
    yield {
      type: 'modelMetadataEvent',
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    };
  }
}

/** The tool names the assistant called in the message that the last tool results answer. */
export function lastToolResults(messages: Message[]): { name: string; result: unknown }[] {
  const last = messages.at(-1);
  const previous = messages.at(-2);
  if (!last || last.role !== 'user' || !previous) return [];
  const names = new Map<string, string>();
  for (const block of previous.content)
    if (block.type === 'toolUseBlock') names.set(block.toolUseId, block.name);
  const results: { name: string; result: unknown }[] = [];
  for (const block of last.content) {
    if (block.type !== 'toolResultBlock') continue;
    results.push({
      name: names.get(block.toolUseId) ?? 'unknown',
      result: resultValue(block.content, block.status),
    });
  }
  return results;
}

function resultValue(content: readonly unknown[], status: string | undefined): unknown {
  for (const part of content) {
    const block = part as { type?: string; json?: unknown; text?: string };
    if (block.type === 'jsonBlock') return block.json;
    if (block.type === 'textBlock' && block.text !== undefined) {
      try {
        return JSON.parse(block.text);
      } catch {
        return { text: block.text, status };
      }
    }
  }
  return { status };
}

/** The system prompt as plain text. */
export function systemText(options: StreamOptions | undefined): string {
  const prompt = options?.systemPrompt;
  if (prompt === undefined) return '';
  if (typeof prompt === 'string') return prompt;
  return prompt.map((block) => ('text' in block ? String(block.text) : '')).join('\n');
}

/** Names of the tools the model was offered. */
export function toolNames(options: StreamOptions | undefined): string[] {
  return (options?.toolSpecs ?? []).map((spec) => spec.name);
}

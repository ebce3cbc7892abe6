import { Agent, type AgentConfig, type Message, type StreamOptions } from '@strands-agents/sdk';
import {
  TurnModel,
  lastToolResults,
  type PlannedTurn,
  type TurnInput,
} from '../../shared/models/turn-model.ts';
import type { ToolResults } from '../support/scripted-model.ts';

export type TurnScript = (results: ToolResults, input: TurnInput, call: number) => PlannedTurn;

/** One model call as the model saw it. */
export interface SeenCall {
  messages: Message[];
  options: StreamOptions | undefined;
  tools: string[];
}

/** A scripted model that also keeps what every call was shown. */
export class SeeingModel extends TurnModel {
  readonly calls: SeenCall[] = [];

  constructor(private readonly script: TurnScript) {
    super('seeing');
  }

  protected plan(input: TurnInput): PlannedTurn {
    const call = this.calls.length;
    this.calls.push({
      messages: [...input.messages],
      options: input.options,
      tools: (input.options?.toolSpecs ?? []).map((s) => s.name),
    });
    return this.script(lastToolResults(input.messages), input, call);
  }
}

/** An agent on a scripted model; `turns` are played in order (the last one repeats). */
export function scripted(
  name: string,
  turns: PlannedTurn[] | TurnScript,
  config: Omit<AgentConfig, 'model' | 'name'> = {},
): { agent: Agent; model: SeeingModel } {
  const script: TurnScript = Array.isArray(turns)
    ? (_r, _i, n) => turns[Math.min(n, turns.length - 1)]!
    : turns;
  const model = new SeeingModel(script);
  const agent = new Agent({ name, id: name, model, printer: false, ...config });
  return { agent, model };
}

export const call = (name: string, input: Record<string, unknown> = {}): PlannedTurn => ({
  toolCalls: [{ name, input }],
});
export const say = (text: string): PlannedTurn => ({ text });

/** All text of a message list, for asserting what a model saw. */
export function textsOf(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'textBlock' ? [b.text] : [])));
}

/** The tool results of the last message, as the scripted model reads them. */
export function lastResults(
  messages: readonly Message[],
): { toolUseId: string; status: string; text: string }[] {
  const last = messages.at(-1);
  if (!last) return [];
  return last.content.flatMap((b) =>
    b.type === 'toolResultBlock'
      ? [{ toolUseId: b.toolUseId, status: b.status, text: JSON.stringify(b.toJSON().toolResult.content) }]
      : [],
  );
}

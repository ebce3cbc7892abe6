import type { Agent, InvocationState, JSONValue, LocalAgent, Message } from '@strands-agents/sdk';
import type { Handoff, HandoffRunContext } from './handoff.ts';
import { HandoffInputData } from './input-data.ts';
import type { RunItem } from './items.ts';

const RUN_KEY = 'strands-handoffs:run';

/** One agent's part of a run: what it inherited and what it has produced so far. */
export interface Segment {
  readonly agent: Agent;
  readonly context: Message[];
  readonly output: Message[];
  /** Messages still to be appended from the invocation's input; they count as context. */
  pendingInput: number;
  /** How many `output` messages have been turned into items already. */
  emitted: number;
  /** The assistant message whose tool calls are running (not yet in `output`). */
  inflight: Message | undefined;
}

/** A transfer the model asked for in the current turn. */
export interface PendingTransfer {
  readonly handoff: Handoff<never>;
  readonly toolUseId: string;
  readonly input: JSONValue;
  parsed: unknown;
  committed: boolean;
}

/**
 * The state of one `runWithHandoffs` call, shared with the handoff hooks through the
 * invocation state (`invocationState` reaches every hook, middleware and tool of one
 * invocation), so concurrent runs never see each other.
 */
export class RunControl<C = unknown> {
  segment!: Segment;
  /** Transfer tools offered on the latest model call; `undefined` before the first. */
  offered: Set<string> | undefined;
  pending: PendingTransfer | undefined;
  failure: unknown;

  constructor(
    readonly context: C,
    readonly maxHandoffs: number,
    readonly newItems: RunItem[],
    public handoffCount: number,
  ) {}

  ctx(): HandoffRunContext<C> {
    return Object.freeze({
      context: this.context,
      newItems: Object.freeze([...this.newItems]),
      handoffCount: this.handoffCount,
    });
  }

  /** Records the first failure and stops the current agent; the runner throws it. */
  fail(error: unknown): void {
    if (this.failure === undefined) this.failure = error;
    this.segment.agent.cancel();
  }

  /** The data as it stands mid-turn: `output` ends with the message carrying the transfer call. */
  inflightData(target: string): HandoffInputData {
    const { agent, context, output, inflight } = this.segment;
    return new HandoffInputData({
      source: agent.name,
      target,
      context: context.map((m) => m.clone()),
      output: [...output, ...(inflight ? [inflight] : [])].map((m) => m.clone()),
    });
  }

  invocationState(): InvocationState {
    return { [RUN_KEY]: this };
  }

  toJSON(): string {
    return '[handoff run]';
  }
}

/** The run driving `agent` in this invocation, if any. */
export function activeRun(state: InvocationState, agent: LocalAgent): RunControl | undefined {
  const run = state[RUN_KEY];
  return run instanceof RunControl && run.segment.agent === agent ? run : undefined;
}

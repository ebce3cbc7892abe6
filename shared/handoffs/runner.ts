import {
  AfterModelCallEvent,
  Message,
  MessageAddedEvent,
  type Agent,
  type AgentResult,
  type Interrupt,
  type InterruptResponse,
  type InvokeArgs,
  type JSONValue,
  type MessageData,
  type Snapshot,
  type StopReason,
} from '@strands-agents/sdk';
import { HandoffConfigError, HandoffLimitError } from './errors.ts';
import { forwardHistory, type Transfer } from './forward.ts';
import type { HandoffInputData } from './input-data.ts';
import { handoffsOf, transferMarker } from './install.ts';
import { itemsFromMessages, type HandoffMark, type RunItem } from './items.ts';
import { RunControl, type Segment } from './run-control.ts';

export interface HandoffRunOptions<C = unknown> {
  /** Passed to `enabled`, `onHandoff` and route checks as `ctx.context`. Not serialised. */
  readonly context?: C;
  /** Handoffs allowed in one run (default 10); one more throws `HandoffLimitError`. */
  readonly maxHandoffs?: number;
}

/** A paused run, as JSON: enough for another process to resume it in the right agent. */
export interface HandoffRunState {
  readonly version: 1;
  readonly currentAgent: string;
  readonly snapshot: Snapshot;
  readonly segment: {
    readonly context: MessageData[];
    readonly output: MessageData[];
    readonly emitted: number;
  };
  readonly newItems: readonly RunItem[];
  readonly handoffCount: number;
  readonly maxHandoffs: number;
  /** A transfer claimed in the turn that paused (another tool of that turn raised the interrupt). */
  readonly pending: {
    readonly toolName: string;
    readonly toolUseId: string;
    readonly input: JSONValue;
  } | null;
}

export interface HandoffRunResult {
  /** The agent that ran last: the one holding control when the run ended or paused. */
  readonly lastAgent: Agent;
  readonly newItems: readonly RunItem[];
  /** Text of the last agent's final message. */
  readonly output: string;
  readonly structuredOutput: unknown;
  readonly stopReason: StopReason;
  readonly result: AgentResult;
  readonly interrupts: readonly Interrupt[];
  readonly handoffCount: number;
  /** The data of each handoff made in this call, as forwarded (the audit trail). */
  readonly handoffs: readonly HandoffInputData[];
  /** Set when `stopReason === 'interrupt'`: pass it to `resumeWithHandoffs`. */
  readonly state: HandoffRunState | undefined;
}

/**
 * Runs `agent` on `input`; when it hands off, runs the target on the forwarded history,
 * and so on until an agent finishes without handing off (or pauses at an interrupt).
 */
export async function runWithHandoffs<C = unknown>(
  agent: Agent,
  input: InvokeArgs,
  options: HandoffRunOptions<C> = {},
): Promise<HandoffRunResult> {
  const run = new RunControl(options.context as C, options.maxHandoffs ?? 10, [], 0);
  run.segment = newSegment(agent, [...agent.messages], countInputMessages(input));
  return drive(run, input);
}

/**
 * Resumes a paused run, possibly in another process. `agents` must hold the agent named by
 * `state.currentAgent`, built with the same handoffs as before (the same factory code).
 */
export async function resumeWithHandoffs<C = unknown>(
  agents: Readonly<Record<string, Agent>>,
  state: HandoffRunState,
  responses: readonly InterruptResponse[],
  options: Pick<HandoffRunOptions<C>, 'context'> = {},
): Promise<HandoffRunResult> {
  if (state.version !== 1)
    throw new HandoffConfigError(`unknown handoff run state version ${String(state.version)}`);
  const agent = agents[state.currentAgent];
  if (!agent) throw new HandoffConfigError(`no agent named "${state.currentAgent}" to resume the run in`);
  await agent.initialize();
  agent.loadSnapshot(state.snapshot);
  const run = new RunControl(
    options.context as C,
    state.maxHandoffs,
    [...state.newItems],
    state.handoffCount,
  );
  run.segment = newSegment(
    agent,
    state.segment.context.map((m) => Message.fromJSON(m)),
    0,
  );
  run.segment.output.push(...state.segment.output.map((m) => Message.fromJSON(m)));
  run.segment.emitted = state.segment.emitted;
  if (state.pending) {
    const pending = state.pending;
    const h = handoffsOf(agent)?.handoffs.find((x) => x.toolName === pending.toolName);
    if (!h) throw new HandoffConfigError(`agent "${agent.name}" has no handoff tool ${pending.toolName}`);
    const parsed = h.inputType ? h.inputType.parse(pending.input) : pending.input;
    run.pending = { handoff: h, toolUseId: pending.toolUseId, input: pending.input, parsed, committed: true };
  }
  return drive(
    run,
    responses.map((r) => ({ interruptResponse: { interruptId: r.interruptId, response: r.response } })),
  );
}

async function drive<C>(run: RunControl<C>, input: InvokeArgs): Promise<HandoffRunResult> {
  const handoffs: HandoffInputData[] = [];
  let args = input;
  for (;;) {
    const segment = run.segment;
    const result = await invokeSegment(run, args);
    if (run.failure !== undefined) throw run.failure;
    if (result.stopReason === 'interrupt') {
      emit(run);
      return finish(run, result, handoffs, pausedState(run));
    }
    const transfer = toolTransfer(run, result) ?? (await routeTransfer(run, result));
    emit(run, transfer?.mark);
    if (!transfer) return finish(run, result, handoffs, undefined);
    const { data, messages } = await forwardHistory(segment, transfer);
    handoffs.push(data);
    run.handoffCount += 1;
    const target = transfer.target;
    target.messages.splice(0, target.messages.length, ...messages);
    run.segment = newSegment(target, [...messages], 0);
    args = [];
  }
}

/** Invokes the segment's agent, recording what it appends and the assistant message in flight. */
async function invokeSegment(run: RunControl, args: InvokeArgs): Promise<AgentResult> {
  const segment = run.segment;
  const agent = segment.agent;
  const invocationState = run.invocationState();
  const cleanups = [
    agent.addHook(MessageAddedEvent, (event) => {
      if (event.invocationState !== invocationState) return;
      if (segment.pendingInput > 0) {
        segment.pendingInput -= 1;
        segment.context.push(event.message);
      } else segment.output.push(event.message);
    }),
    agent.addHook(AfterModelCallEvent, (event) => {
      if (event.invocationState === invocationState && event.stopData)
        segment.inflight = event.stopData.message;
    }),
  ];
  try {
    return await agent.invoke(args, { invocationState });
  } finally {
    for (const cleanup of cleanups) cleanup();
    run.offered = undefined;
  }
}

/** The transfer the model made this segment, with the turn-ending marker taken out of the output. */
function toolTransfer(run: RunControl, result: AgentResult): Transfer | undefined {
  const pending = run.pending;
  run.pending = undefined;
  if (!pending?.committed || result.stopReason !== 'endTurn') return undefined;
  const { output, agent } = run.segment;
  const h = pending.handoff;
  const last = output.at(-1);
  const marker = transferMarker(h.targetName);
  if (last?.role === 'assistant' && last.content.every((b) => b.type === 'textBlock' && b.text === marker)) {
    output.pop();
  }
  const mark: HandoffMark = {
    source: agent.name,
    target: h.targetName,
    toolUseId: pending.toolUseId,
    via: 'tool',
  };
  return {
    target: h.target,
    mark,
    inputFilter: h.inputFilter,
    budget: h.policy.budget,
    collapse: h.policy.collapse,
  };
}

/** Code-orchestrated: an agent bound to a route produced an intent; the route picks the target. */
async function routeTransfer(run: RunControl, result: AgentResult): Promise<Transfer | undefined> {
  const route = handoffsOf(run.segment.agent)?.route;
  if (!route || result.structuredOutput === undefined) return undefined;
  const match = await route.resolve(result.structuredOutput, run.ctx() as never);
  if (run.handoffCount >= run.maxHandoffs) {
    throw new HandoffLimitError(`more than ${run.maxHandoffs} handoffs in one run`);
  }
  const call = result.lastMessage.content.find((b) => b.type === 'toolUseBlock');
  const toolUseId =
    call?.type === 'toolUseBlock' ? call.toolUseId : `route_${route.name}_${run.handoffCount}`;
  const mark: HandoffMark = {
    source: run.segment.agent.name,
    target: match.target.name,
    toolUseId,
    via: 'route',
  };
  const { inputFilter, policy } = match.forwarding;
  return {
    target: match.target,
    mark,
    inputFilter,
    budget: policy?.budget,
    collapse: policy?.collapse ?? false,
  };
}

function emit(run: RunControl, mark?: HandoffMark): void {
  const segment = run.segment;
  const fresh = segment.output.slice(segment.emitted);
  run.newItems.push(...itemsFromMessages(segment.agent.name, fresh, mark));
  segment.emitted = segment.output.length;
}

function finish(
  run: RunControl,
  result: AgentResult,
  handoffs: readonly HandoffInputData[],
  state: HandoffRunState | undefined,
): HandoffRunResult {
  const text = result.lastMessage.content.flatMap((b) => (b.type === 'textBlock' ? [b.text] : [])).join('\n');
  return Object.freeze({
    lastAgent: run.segment.agent,
    newItems: Object.freeze([...run.newItems]),
    output: text,
    structuredOutput: result.structuredOutput,
    stopReason: result.stopReason,
    result,
    interrupts: Object.freeze([...(result.interrupts ?? [])]),
    handoffCount: run.handoffCount,
    handoffs: Object.freeze([...handoffs]),
    state,
  });
}

function pausedState(run: RunControl): HandoffRunState {
  const { agent, context, output, emitted } = run.segment;
  const pending = run.pending?.committed ? run.pending : undefined;
  return {
    version: 1,
    currentAgent: agent.name,
    snapshot: agent.takeSnapshot({ preset: 'session' }),
    segment: { context: context.map((m) => m.toJSON()), output: output.map((m) => m.toJSON()), emitted },
    newItems: [...run.newItems],
    handoffCount: run.handoffCount,
    maxHandoffs: run.maxHandoffs,
    pending: pending
      ? { toolName: pending.handoff.toolName, toolUseId: pending.toolUseId, input: pending.input }
      : null,
  };
}

function newSegment(agent: Agent, context: Message[], pendingInput: number): Segment {
  return { agent, context, output: [], pendingInput, emitted: 0, inflight: undefined };
}

/** How many messages an invocation's input appends (they are inherited context, not output). */
function countInputMessages(input: InvokeArgs): number {
  if (typeof input === 'string') return 1;
  if (!Array.isArray(input)) return 0;
  const first: unknown = input[0];
  if (first === undefined) return 0;
  if (typeof first === 'object' && first !== null) {
    if ('role' in first) return input.length;
    if ('interruptResponse' in first) return 0;
  }
  return 1;
}

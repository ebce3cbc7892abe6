import {
  AfterInvocationEvent,
  AfterModelCallEvent,
  AfterToolCallEvent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  InterruptEvent,
  ModelStreamUpdateEvent,
  type Agent,
  type ContentBlock,
  type Usage,
} from '@strands-agents/sdk';
import {
  AfterMultiAgentInvocationEvent,
  AfterNodeCallEvent,
  BeforeNodeCallEvent,
  Status,
  type Graph,
} from '@strands-agents/sdk/multiagent';
import type { ModelEvent } from '../models/model-events.ts';
import { costOf, PRICES, type Price } from './prices.ts';
import { jsonText, truncate, type RepairNote, type RetryNote, type TraceEntry } from './trace.ts';
import { errorMessage } from '../errors/index.ts';
import type { Tail } from './session-chunks.ts';

/** Tool inputs and outputs, and model output, are kept to a few KB each. */
export const TOOL_INPUT_CHARS = 2_000;
export const TOOL_OUTPUT_CHARS = 4_000;
export const MODEL_OUTPUT_CHARS = 2_000;
export const REASON_CHARS = 1_000;
/** Entries held in memory before a write, besides the writes at node ends and pauses. */
export const DEFAULT_BATCH = 50;

/** One batch of a run's trace, appended in order. */
export interface SessionBatch {
  runId: string;
  /** The session record appended to: the run's own (its id), or a side record such as a learner's. */
  sessionId?: string;
  workflowId: string;
  entries: TraceEntry[];
}

/** Where traces go (the store in production); one call per batch, never per entry. */
export interface SessionSink {
  append(batch: SessionBatch): Promise<void>;
  /** Where a session goes on, when the sink knows (after it wrote to it, or was told). */
  tailOf?(sessionId: string): Tail | undefined;
}

export interface RecorderOptions {
  runId: string;
  /** Default: the run's own session record. */
  sessionId?: string;
  workflowId: string;
  batchSize?: number;
  prices?: Readonly<Record<string, Price>>;
  /** A failed write is reported here and retried with the next batch; the run goes on. */
  onError?: (error: unknown) => void;
}

export interface AgentOptions {
  /** The graph node the agent runs as. */
  node: string;
  /** The agent's name when it is not the node's own agent (a specialist inside the executor node). */
  agent?: string;
  /** The id the price table is keyed by; defaults to the model's configured id. */
  modelId?: string;
}

/**
 * Records a run as one ordered trace: every model turn (tokens, cost, latency, stop
 * reason, output) and tool call (input, output, status, latency), the graph's nodes,
 * the pause and the resume. Entries are buffered and written in batches: every
 * `batchSize` entries, and when the invocation ends (a pause, a hand-over to the next
 * step, the end of the run, an error: the graph's end fires in every case).
 */
export class SessionRecorder {
  private buffer: TraceEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly paused = new Set<string>();
  private inGraph = false;
  /** What the resilient provider did during the model turn under way. */
  private turnNotes: { repairs: RepairNote[]; retries: RetryNote[] } = { repairs: [], retries: [] };

  constructor(
    private readonly sink: SessionSink,
    private readonly options: RecorderOptions,
  ) {}

  /** Adds an entry; writes the batch when it is full. */
  async record(entry: TraceEntry): Promise<void> {
    if (entry.kind === 'pause') this.paused.add(entry.interrupt_id);
    this.buffer.push(entry);
    if (this.buffer.length >= (this.options.batchSize ?? DEFAULT_BATCH)) await this.flush();
  }

  /** Where the recorded session goes on, as far as this recorder's writes know (none: unknown). */
  tail(): Tail | undefined {
    return this.sink.tailOf?.(this.options.sessionId ?? this.options.runId);
  }

  /** Writes what is buffered; writes never overlap, so the trace keeps its order. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /**
   * Notes a repair or retry of the resilient provider; it is kept with the model turn it
   * happened in. (A give-up needs no note: it is that turn's error.)
   */
  noteModelEvent(event: ModelEvent): void {
    if (event.kind === 'repaired') {
      const { source, tools, fixes, before, after, detail } = event;
      this.turnNotes.repairs.push({ source, tools, fixes, before, after, detail });
    } else if (event.kind === 'retried')
      this.turnNotes.retries.push({
        reason: event.reason,
        attempt: event.attempt,
        wait_ms: event.waitMs,
        retry_after: event.retryAfter,
        status: event.status ?? null,
        detail: event.detail,
      });
  }

  private takeTurnNotes(): { repairs?: RepairNote[]; retries?: RetryNote[] } {
    const { repairs, retries } = this.turnNotes;
    this.turnNotes = { repairs: [], retries: [] };
    return { ...(repairs.length > 0 ? { repairs } : {}), ...(retries.length > 0 ? { retries } : {}) };
  }

  /** Records an agent's model turns, tool calls and pauses as node `node`. */
  watchAgent(agent: Agent, opts: AgentOptions): this {
    const node = opts.node;
    const by = opts.agent !== undefined ? { agent: opts.agent } : {};
    let turn: { at: string; t0: number; messages: number; chars: number } | null = null;
    let usage: Usage | undefined;
    let latencyMs: number | undefined;
    const tools = new Map<string, { at: string; t0: number; cancelled: boolean }>();

    agent.addHook(BeforeModelCallEvent, () => {
      turn = { at: now(), t0: performance.now(), messages: agent.messages.length, chars: 0 };
      turn.chars = jsonText(agent.messages).length;
      usage = undefined;
      latencyMs = undefined;
      this.takeTurnNotes();
    });
    agent.addHook(ModelStreamUpdateEvent, (event) => {
      if (event.event.type !== 'modelMetadataEvent') return;
      if (event.event.usage) usage = event.event.usage;
      if (event.event.metrics) latencyMs = event.event.metrics.latencyMs;
    });
    agent.addHook(AfterModelCallEvent, async (event) => {
      const started = turn ?? { at: now(), t0: performance.now(), messages: 0, chars: 0 };
      turn = null;
      const modelId = opts.modelId ?? event.model.getConfig().modelId ?? 'unknown';
      const tokens = { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 };
      // A turn answered without usage (rebuilt from a refused generation) cost an unknown
      // amount, not nothing. A request that failed before any answer is billed nothing.
      const unknown = usage === undefined && event.stopData !== undefined;
      await this.record({
        kind: 'model',
        at: started.at,
        node,
        ...by,
        model_id: modelId,
        ms: Math.round(latencyMs ?? performance.now() - started.t0),
        input_messages: started.messages,
        input_chars: started.chars,
        input_tokens: tokens.inputTokens,
        output_tokens: tokens.outputTokens,
        ...(unknown ? { usage_unknown: true } : {}),
        cost_usd: unknown ? null : costOf(modelId, tokens, this.options.prices ?? PRICES),
        stop_reason: event.stopData?.stopReason ?? 'error',
        output: truncate(
          event.stopData ? contentText(event.stopData.message.content) : '',
          MODEL_OUTPUT_CHARS,
        ),
        ...(event.error ? { error: firstLine(event.error) } : {}),
        ...this.takeTurnNotes(),
      });
    });
    // Registered after the gate, so a call the gate set aside is seen as cancelled, not failed.
    agent.addHook(BeforeToolCallEvent, (event) => {
      tools.set(event.toolUse.toolUseId, {
        at: now(),
        t0: performance.now(),
        cancelled: event.cancel !== false,
      });
    });
    agent.addHook(AfterToolCallEvent, async (event) => {
      const started = tools.get(event.toolUse.toolUseId) ?? {
        at: now(),
        t0: performance.now(),
        cancelled: false,
      };
      tools.delete(event.toolUse.toolUseId);
      await this.record({
        kind: 'tool',
        at: started.at,
        node,
        ...by,
        tool: event.toolUse.name,
        tool_use_id: event.toolUse.toolUseId,
        input: truncate(jsonText(event.toolUse.input), TOOL_INPUT_CHARS),
        output: truncate(contentText(event.result.content), TOOL_OUTPUT_CHARS),
        status: started.cancelled ? 'cancelled' : event.error ? 'error' : event.result.status,
        ms: Math.round(performance.now() - started.t0),
      });
    });
    agent.addHook(InterruptEvent, async (event) => {
      await this.record({
        kind: 'pause',
        at: now(),
        node,
        ...by,
        interrupt_id: event.interrupt.id,
        name: event.interrupt.name,
        reason: truncate(jsonText(event.interrupt.reason ?? null), REASON_CHARS),
      });
    });
    // In a graph, the graph's end flushes; a lone agent flushes when its invocation ends (or pauses).
    agent.addHook(AfterInvocationEvent, async () => {
      if (!this.inGraph) await this.flush();
    });
    return this;
  }

  /**
   * Records the graph's nodes, a resume into a paused node and any pause the agents
   * did not report (a hand-over between processes); flushes when the graph's invocation ends.
   */
  watchGraph(graph: Graph): this {
    this.inGraph = true;
    const started = new Map<string, number>();
    graph.addHook(BeforeNodeCallEvent, async (event) => {
      const state = event.state.node(event.nodeId);
      if (state && (state.status === Status.INTERRUPTED || state.interruptedSnapshot))
        await this.record({
          kind: 'resume',
          at: now(),
          node: event.nodeId,
          interrupt_ids: state.interrupts.map((i) => i.id),
        });
      started.set(event.nodeId, performance.now());
      await this.record({ kind: 'node_start', at: now(), node: event.nodeId });
    });
    graph.addHook(AfterNodeCallEvent, async (event) => {
      const t0 = started.get(event.nodeId) ?? performance.now();
      await this.record({
        kind: 'node_end',
        at: now(),
        node: event.nodeId,
        ms: Math.round(performance.now() - t0),
        status: event.state.node(event.nodeId)?.status ?? 'unknown',
        ...(event.error ? { error: firstLine(event.error) } : {}),
      });
    });
    graph.addHook(AfterMultiAgentInvocationEvent, async (event) => {
      for (const [node, state] of event.state.nodes) {
        if (state.status !== Status.INTERRUPTED) continue;
        for (const interrupt of state.interrupts.filter((i) => !this.paused.has(i.id)))
          await this.record({
            kind: 'pause',
            at: now(),
            node,
            interrupt_id: interrupt.id,
            name: interrupt.name,
            reason: truncate(jsonText(interrupt.reason ?? null), REASON_CHARS),
          });
      }
      await this.flush();
    });
    return this;
  }

  private async write(): Promise<void> {
    if (this.buffer.length === 0) return;
    const entries = this.buffer;
    this.buffer = [];
    try {
      const { runId, sessionId, workflowId } = this.options;
      await this.sink.append({ runId, ...(sessionId ? { sessionId } : {}), workflowId, entries });
    } catch (error) {
      this.buffer = [...entries, ...this.buffer];
      (this.options.onError ?? reportToStderr(this.options.runId))(error);
    }
  }
}

/** Records `agent` (running as `opts.node`) into the run's session; returns the recorder. */
export function attachRecorder(
  agent: Agent,
  sink: SessionSink,
  opts: RecorderOptions & AgentOptions,
): SessionRecorder {
  return new SessionRecorder(sink, opts).watchAgent(agent, opts);
}

/** Text of content blocks: text as is, tool uses as `name(input)`, JSON as JSON. */
export function contentText(blocks: readonly ContentBlock[] | readonly unknown[]): string {
  return blocks
    .map((raw) => {
      const block = raw as { type?: string; text?: string; json?: unknown; name?: string; input?: unknown };
      if (block.type === 'textBlock') return block.text ?? '';
      if (block.type === 'jsonBlock') return jsonText(block.json);
      if (block.type === 'toolUseBlock') return `${block.name}(${jsonText(block.input)})`;
      return `[${block.type ?? 'content'}]`;
    })
    .join('\n');
}

function now(): string {
  return new Date().toISOString();
}

function firstLine(error: Error): string {
  return truncate(error.message.split('\n')[0] ?? '', REASON_CHARS);
}

function reportToStderr(runId: string) {
  return (error: unknown) =>
    process.stderr.write(
      `[handoff] session recorder: could not save the trace of run ${runId} (will retry): ${errorMessage(
        error,
      )}\n`,
    );
}

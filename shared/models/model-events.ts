/**
 * What the resilient provider did on a run's behalf: every repair, retry and give-up
 * is one event, so the run's feed and audit can say why a turn cost two requests, or
 * why a tool call differs from the bytes the endpoint sent.
 */

/** Why a request was sent again. */
export type RetryReason =
  /** 429, or the provider's throttling error. */
  | 'throttled'
  /** 5xx, overloaded, or the provider's service error. */
  | 'server_error'
  /** The connection failed or timed out before an answer. */
  | 'connection'
  /** The model's tool call could not be repaired: the turn is sampled again. */
  | 'unrepairable_tool_call';

/** Where a repaired tool call came from. */
export type RepairSource =
  /** The endpoint rejected the turn (Groq's `tool_use_failed`) and handed back the raw generation. */
  | 'failed_generation'
  /** The endpoint streamed the call, but its arguments were not valid JSON. */
  | 'stream';

interface ModelEventBase {
  /** The provider (`groq`, `openai`, ...). */
  provider: string;
  modelId: string | undefined;
  /** One line for a person. */
  detail: string;
}

export interface RepairedEvent extends ModelEventBase {
  kind: 'repaired';
  source: RepairSource;
  /** The tools the repaired turn calls, in order. */
  tools: string[];
  /** What was fixed: e.g. `stray quote after a number`, `trailing comma`, `<function=…> tag`. */
  fixes: string[];
  /** The raw text the endpoint handed back (truncated). */
  before: string;
  /** The arguments as they were carried on (JSON, truncated). */
  after: string;
}

export interface RetriedEvent extends ModelEventBase {
  kind: 'retried';
  reason: RetryReason;
  /** The attempt that failed (1 = the first request). */
  attempt: number;
  /** How long the provider waits before the next attempt. */
  waitMs: number;
  /** Whether the wait came from the endpoint's `Retry-After`. */
  retryAfter: boolean;
  status: number | undefined;
}

export interface GaveUpEvent extends ModelEventBase {
  kind: 'gave_up';
  reason: RetryReason;
  /** Requests sent for this turn. */
  attempts: number;
  /** Total time waited between them. */
  waitedMs: number;
  status: number | undefined;
}

export type ModelEvent = RepairedEvent | RetriedEvent | GaveUpEvent;
export type ModelEventKind = ModelEvent['kind'];

/** Receives the resilient provider's events; must not throw (a throw is swallowed). */
export type ModelEventListener = (event: ModelEvent) => void;

const MAX_TEXT = 400;

/** Cuts long raw text for an event. */
export function clip(text: string, max = MAX_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A model event as a feed entry: `{ kind, text, data }`, ready for
 * `emit(runId, kind, text, data)` once the feed knows the three kinds.
 */
export function describeModelEvent(event: ModelEvent): {
  kind: ModelEventKind;
  text: string;
  data: Record<string, unknown>;
} {
  const { kind, detail, ...rest } = event;
  return { kind, text: detail, data: { ...rest } };
}

/** Where a run's model events go: the feed (by run id) and, if the host wants them, a recorder. */
export interface ModelEventSinks {
  emit: (channel: string, kind: ModelEventKind, text: string, data: Record<string, unknown>) => void;
  repairs?: ((runId: string, event: ModelEvent) => void) | undefined;
}

/**
 * The listener for one run: each event onto the run's feed channel as `repaired`,
 * `retried` or `gave_up`, and to `repairs` (e.g. an audit recorder) when given.
 * `EngineDeps` fits as `sinks` once the feed knows the three kinds.
 */
export function routeModelEvents(runId: string, sinks: ModelEventSinks): ModelEventListener {
  return (event) => {
    const { kind, text, data } = describeModelEvent(event);
    sinks.emit(runId, kind, text, data);
    sinks.repairs?.(runId, event);
  };
}

/**
 * The resilient provider: a `Model` wrapper that keeps a run going through what
 * open-weight models and busy endpoints do to it.
 *
 * - A tool call the endpoint refused (Groq's HTTP 400 `tool_use_failed`) is read back
 *   out of `failed_generation`, repaired, and streamed on as the model's turn: no
 *   re-sample, no second request.
 * - Tool-call arguments that arrive malformed inside a successful stream are repaired
 *   before the SDK parses them.
 * - Only what cannot be repaired is sampled again, a bounded number of times.
 * - 429 and 5xx (and dropped or timed-out connections) are retried with backoff that
 *   honours `Retry-After`, bounded by attempts and by total wait. A refused connection
 *   (nothing listening) is not: it fails at once, naming the host and port.
 *
 * Every repair, retry and give-up is reported through `onEvent`. Errors that are none
 * of these (a bad request, an overflowing context) pass through untouched.
 */
import { randomBytes } from 'node:crypto';
import {
  Model,
  ModelError,
  type BaseModelConfig,
  type CountTokensOptions,
  type Message,
  type ModelStreamEvent,
  type StreamOptions,
} from '@strands-agents/sdk';
import {
  clip,
  type ModelEvent,
  type ModelEventListener,
  type RepairSource,
  type RetryReason,
} from './model-events.ts';
import { classifyProviderError, type ProviderFailure } from './provider-errors.ts';
import { recoverToolCalls, repairArguments, type RecoveredCall } from './tool-call-repair.ts';
import { plural } from '../text/plural.ts';

export interface ResilienceOptions {
  /** A label for events and errors (`groq`, `openai`, ...). */
  provider?: string;
  /** Requests per turn when the endpoint throttles or fails (the first included). Default 4. */
  maxAttempts?: number;
  /** The most a turn waits between requests, all retries together. Default 60 s. */
  maxTotalWaitMs?: number;
  /** First backoff when the endpoint names no wait; doubles each retry. Default 1 s. */
  baseDelayMs?: number;
  /** Cap on one backoff the provider chooses itself (a `Retry-After` may be longer). Default 20 s. */
  maxDelayMs?: number;
  /** Re-samples of a turn whose tool call could not be repaired. Default 2. */
  maxResamples?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** In [0, 1): the jitter of a backoff. */
  random?: () => number;
  onEvent?: ModelEventListener;
}

type Settings = Required<Omit<ResilienceOptions, 'onEvent'>> & { onEvent: ModelEventListener | undefined };

export const RESILIENCE_DEFAULTS = {
  maxAttempts: 4,
  maxTotalWaitMs: 60_000,
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  maxResamples: 2,
} as const;

/** Raised when the provider stops trying: the message says what failed and how often. */
export class ProviderGaveUpError extends ModelError {
  constructor(
    message: string,
    readonly reason: RetryReason,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderGaveUpError';
  }
}

/** A turn whose tool call could not be repaired; internal, it leads to a re-sample. */
class UnrepairableTurn extends Error {
  constructor(
    readonly raw: string,
    readonly why: string,
  ) {
    super(why);
  }
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function toolUseId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function statusText(failure: ProviderFailure): string {
  return failure.status !== undefined
    ? `HTTP ${failure.status}`
    : failure.message.split('\n')[0]!.slice(0, 160);
}

/** Events of one block the normaliser holds until it closes. */
interface OpenTool {
  kind: 'tool';
  name: string;
  toolUseId: string;
  input: string;
  reasoningSignature: string | undefined;
}

/**
 * Makes a provider's stream well-formed for the SDK's aggregation: every block is
 * closed before the next opens (the OpenAI chat adapter opens a second parallel tool
 * call before closing the first, which loses the first), stray closes are dropped,
 * and each tool call is emitted whole, its arguments repaired if they do not parse.
 */
class TurnNormaliser {
  private open: OpenTool | { kind: 'other' } | null = null;

  constructor(
    private readonly repaired: (call: { name: string; raw: string; fixed: string; fixes: string[] }) => void,
  ) {}

  *push(event: ModelStreamEvent): Generator<ModelStreamEvent> {
    switch (event.type) {
      case 'modelContentBlockStartEvent':
        yield* this.close();
        if (event.start?.type === 'toolUseStart') {
          this.open = {
            kind: 'tool',
            name: event.start.name,
            toolUseId: event.start.toolUseId,
            input: '',
            reasoningSignature: event.start.reasoningSignature,
          };
          return;
        }
        this.open = { kind: 'other' };
        yield event;
        return;
      case 'modelContentBlockDeltaEvent':
        if (event.delta.type === 'toolUseInputDelta' && this.open?.kind === 'tool') {
          this.open.input += event.delta.input;
          return;
        }
        if (this.open?.kind === 'tool') yield* this.close();
        if (this.open === null) {
          this.open = { kind: 'other' };
          yield { type: 'modelContentBlockStartEvent' };
        }
        yield event;
        return;
      case 'modelContentBlockStopEvent':
        yield* this.close();
        return;
      case 'modelMessageStopEvent':
        yield* this.close();
        yield event;
        return;
      default:
        yield event;
    }
  }

  private *close(): Generator<ModelStreamEvent> {
    const open = this.open;
    this.open = null;
    if (open === null) return;
    if (open.kind === 'other') {
      yield { type: 'modelContentBlockStopEvent' };
      return;
    }
    let input = open.input;
    if (input.trim() !== '') {
      const repaired = repairArguments(input);
      if (!repaired) throw new UnrepairableTurn(input, `the arguments of ${open.name} are not JSON`);
      if (repaired.fixes.length > 0) {
        const fixed = JSON.stringify(repaired.value);
        this.repaired({ name: open.name, raw: input, fixed, fixes: repaired.fixes });
        input = fixed;
      }
    }
    yield {
      type: 'modelContentBlockStartEvent',
      start: {
        type: 'toolUseStart',
        name: open.name,
        toolUseId: open.toolUseId,
        ...(open.reasoningSignature !== undefined ? { reasoningSignature: open.reasoningSignature } : {}),
      },
    };
    if (input !== '')
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input } };
    yield { type: 'modelContentBlockStopEvent' };
  }

  *finish(): Generator<ModelStreamEvent> {
    yield* this.close();
  }
}

/** The model's turn, rebuilt from recovered tool calls, as stream events. */
function* synthesise(calls: RecoveredCall[]): Generator<ModelStreamEvent> {
  yield { type: 'modelMessageStartEvent', role: 'assistant' };
  for (const call of calls) {
    yield {
      type: 'modelContentBlockStartEvent',
      start: { type: 'toolUseStart', name: call.name, toolUseId: toolUseId() },
    };
    yield {
      type: 'modelContentBlockDeltaEvent',
      delta: { type: 'toolUseInputDelta', input: JSON.stringify(call.input) },
    };
    yield { type: 'modelContentBlockStopEvent' };
  }
  yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
}

/** Wraps `inner` so a turn survives malformed tool calls, throttling and flaky endpoints. */
export class ResilientModel<T extends BaseModelConfig = BaseModelConfig> extends Model<T> {
  private readonly settings: Settings;

  constructor(
    readonly inner: Model<T>,
    options: ResilienceOptions = {},
  ) {
    super();
    this.settings = {
      provider: options.provider ?? 'model',
      maxAttempts: options.maxAttempts ?? RESILIENCE_DEFAULTS.maxAttempts,
      maxTotalWaitMs: options.maxTotalWaitMs ?? RESILIENCE_DEFAULTS.maxTotalWaitMs,
      baseDelayMs: options.baseDelayMs ?? RESILIENCE_DEFAULTS.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? RESILIENCE_DEFAULTS.maxDelayMs,
      maxResamples: options.maxResamples ?? RESILIENCE_DEFAULTS.maxResamples,
      sleep: options.sleep ?? sleepFor,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      onEvent: options.onEvent,
    };
  }

  /** The same wrapper over the same inner model, reporting to another listener (one per run). */
  withListener(onEvent: ModelEventListener | undefined): ResilientModel<T> {
    const { onEvent: _previous, ...rest } = this.settings;
    return new ResilientModel(this.inner, { ...rest, ...(onEvent ? { onEvent } : {}) });
  }

  updateConfig(modelConfig: T): void {
    this.inner.updateConfig(modelConfig);
  }

  getConfig(): T {
    return this.inner.getConfig();
  }

  override get stateful(): boolean {
    return this.inner.stateful;
  }

  override countTokens(messages: Message[], options?: CountTokensOptions): Promise<number> {
    return this.inner.countTokens(messages, options);
  }

  private report(event: ModelEvent): void {
    try {
      this.settings.onEvent?.(event);
    } catch {
      // A listener's failure must not fail the turn.
    }
  }

  private base() {
    return { provider: this.settings.provider, modelId: this.inner.modelId };
  }

  private repairedEvent(
    source: RepairSource,
    tools: string[],
    fixes: string[],
    before: string,
    after: string,
  ): void {
    const where =
      source === 'failed_generation' ? 'the tool call the endpoint refused' : 'a streamed tool call';
    this.report({
      kind: 'repaired',
      ...this.base(),
      source,
      tools,
      fixes,
      before: clip(before),
      after: clip(after),
      detail: `Repaired ${where} (${tools.join(', ')}): ${fixes.join(', ')}`,
    });
  }

  async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const s = this.settings;
    const tools = (options?.toolSpecs ?? []).map((spec) => spec.name);
    let requests = 0;
    let transientFailures = 0;
    let resamples = 0;
    let waitedMs = 0;

    const resampleOrGiveUp = (raw: string, why: string): void => {
      resamples += 1;
      if (resamples > s.maxResamples) {
        const detail = `Gave up: the model's tool call could not be repaired after ${plural(requests, 'sample')} (${why})${
          raw.trim() !== '' ? `: ${clip(raw, 200)}` : ''
        }`;
        this.report({
          kind: 'gave_up',
          ...this.base(),
          reason: 'unrepairable_tool_call',
          attempts: requests,
          waitedMs,
          status: undefined,
          detail,
        });
        throw new ProviderGaveUpError(`${s.provider}: ${detail}`, 'unrepairable_tool_call', requests);
      }
      this.report({
        kind: 'retried',
        ...this.base(),
        reason: 'unrepairable_tool_call',
        attempt: requests,
        waitMs: 0,
        retryAfter: false,
        status: undefined,
        detail: `Sampling the turn again (${resamples} of ${s.maxResamples}): ${why}`,
      });
    };

    for (;;) {
      requests += 1;
      const normaliser = new TurnNormaliser(({ name, raw, fixed, fixes }) =>
        this.repairedEvent('stream', [name], fixes, raw, fixed),
      );
      // Each request gets its own signal, linked to the caller's: SDK clients attach an abort
      // listener per request to the signal they are given and never remove it.
      const outer = options?.cancelSignal;
      const request = new AbortController();
      const relay = () => request.abort(outer?.reason);
      if (outer?.aborted) relay();
      else outer?.addEventListener('abort', relay, { once: true });
      try {
        const attemptOptions: StreamOptions | undefined = outer
          ? { ...options, cancelSignal: request.signal }
          : options;
        for await (const event of this.inner.stream(messages, attemptOptions)) yield* normaliser.push(event);
        yield* normaliser.finish();
        return;
      } catch (error) {
        if (error instanceof UnrepairableTurn) {
          resampleOrGiveUp(error.raw, error.why);
          continue;
        }
        if (options?.cancelSignal?.aborted) throw error;
        const failure = classifyProviderError(error, s.now());
        if (failure.kind === 'tool_use_failed') {
          const raw = failure.failedGeneration ?? '';
          const recovered = recoverToolCalls(raw, tools);
          if (recovered) {
            this.repairedEvent(
              'failed_generation',
              recovered.calls.map((c) => c.name),
              recovered.fixes,
              raw,
              JSON.stringify(recovered.calls),
            );
            yield* synthesise(recovered.calls);
            return;
          }
          resampleOrGiveUp(
            raw,
            raw.trim() === '' ? 'the endpoint handed back no generation' : 'no tool call to recover',
          );
          continue;
        }
        if (failure.kind === 'other') throw error;
        if (failure.kind === 'refused') {
          // Nothing listens there: a retry would be refused the same way, so say where at once.
          const where = failure.endpoint ?? 'the endpoint';
          const detail = `Connection refused by ${where}: nothing is listening there (is the server running, and is the base URL or region right?)`;
          this.report({
            kind: 'gave_up',
            ...this.base(),
            reason: 'connection',
            attempts: requests,
            waitedMs,
            status: undefined,
            detail,
          });
          throw new ProviderGaveUpError(`${s.provider}: ${detail}`, 'connection', requests, { cause: error });
        }
        const reason: RetryReason =
          failure.kind === 'throttled'
            ? 'throttled'
            : failure.kind === 'server_error'
              ? 'server_error'
              : 'connection';
        transientFailures += 1;
        const backoff = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** (transientFailures - 1));
        const waitMs = Math.round(failure.retryAfterMs ?? backoff * (0.5 + s.random() * 0.5));
        const left = s.maxTotalWaitMs - waitedMs;
        if (transientFailures >= s.maxAttempts || waitMs > left) {
          const asked =
            failure.retryAfterMs !== undefined ? 'the endpoint asked to wait' : 'the next wait would be';
          const why =
            transientFailures >= s.maxAttempts
              ? `${plural(requests, 'request')}`
              : `${asked} ${seconds(waitMs)}, more than the ${seconds(left)} left of ${seconds(s.maxTotalWaitMs)}`;
          const detail = `Gave up after ${why}, ${seconds(waitedMs)} waited: ${statusText(failure)} (${reason})`;
          this.report({
            kind: 'gave_up',
            ...this.base(),
            reason,
            attempts: requests,
            waitedMs,
            status: failure.status,
            detail,
          });
          throw new ProviderGaveUpError(`${s.provider}: ${detail}`, reason, requests, { cause: error });
        }
        this.report({
          kind: 'retried',
          ...this.base(),
          reason,
          attempt: requests,
          waitMs,
          retryAfter: failure.retryAfterMs !== undefined,
          status: failure.status,
          detail: `${statusText(failure)} (${reason}); retrying in ${seconds(waitMs)}${
            failure.retryAfterMs !== undefined ? ' as Retry-After asks' : ''
          }`,
        });
        await s.sleep(waitMs, options?.cancelSignal);
        waitedMs += waitMs;
      } finally {
        outer?.removeEventListener('abort', relay);
      }
    }
  }
}

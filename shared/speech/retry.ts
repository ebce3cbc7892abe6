/**
 * The model providers' retry policy for one HTTP request: 429, 5xx and dropped
 * connections are tried again with backoff that honours `Retry-After`, bounded by
 * attempts and total wait; a refused connection and any other failure are not.
 */
import { classifyProviderError } from '../models/provider-errors.ts';
import { RESILIENCE_DEFAULTS } from '../models/resilient-model.ts';

export interface RetryOptions {
  maxAttempts?: number;
  maxTotalWaitMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A non-2xx HTTP answer, shaped so classifyProviderError reads its status and `Retry-After`. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`);
    this.name = 'HttpStatusError';
  }
}

/** Runs `attempt` until it succeeds, fails for good, or the attempts or the wait run out. */
export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const maxAttempts = options.maxAttempts ?? RESILIENCE_DEFAULTS.maxAttempts;
  const maxTotalWaitMs = options.maxTotalWaitMs ?? RESILIENCE_DEFAULTS.maxTotalWaitMs;
  const baseDelayMs = options.baseDelayMs ?? RESILIENCE_DEFAULTS.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? RESILIENCE_DEFAULTS.maxDelayMs;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let waited = 0;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const failure = classifyProviderError(error);
      const retryable = ['throttled', 'server_error', 'connection'].includes(failure.kind);
      const wait = failure.retryAfterMs ?? Math.min(maxDelayMs, baseDelayMs * 2 ** (tries - 1));
      if (!retryable || tries >= maxAttempts || waited + wait > maxTotalWaitMs) throw error;
      waited += wait;
      await sleep(wait);
    }
  }
}

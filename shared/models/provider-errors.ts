import { errorMessage } from '../errors/index.ts';
/**
 * Reads what a provider's error says, whichever SDK threw it (openai, @anthropic-ai/sdk,
 * the AWS SDK) and however the Strands model re-wrapped it (`ModelThrottledError` with
 * the original as `cause`): its status, its `Retry-After`, and Groq's `failed_generation`.
 */

/**
 * `refused`: nothing listens at the endpoint (ECONNREFUSED). Unlike a dropped or timed-out
 * `connection`, waiting does not help, so it is not retried.
 */
export type FailureKind =
  'throttled' | 'server_error' | 'connection' | 'refused' | 'tool_use_failed' | 'other';

export interface ProviderFailure {
  kind: FailureKind;
  status: number | undefined;
  /** The wait the endpoint asked for, if it named one. */
  retryAfterMs: number | undefined;
  /** Groq's raw text of the turn it refused. */
  failedGeneration: string | undefined;
  /** `host:port` that refused the connection, when the error names it. */
  endpoint: string | undefined;
  message: string;
}

type Bag = Record<string, unknown>;

function asBag(value: unknown): Bag | undefined {
  return typeof value === 'object' && value !== null ? (value as Bag) : undefined;
}

/** The error and its causes, outermost first (bounded, cycle-safe). */
function chain(error: unknown): Bag[] {
  const out: Bag[] = [];
  let current: unknown = error;
  while (out.length < 6) {
    const bag = asBag(current);
    if (!bag || out.includes(bag)) break;
    out.push(bag);
    current = bag.cause;
  }
  return out;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  const withGet = headers as { get?: (n: string) => string | null | undefined };
  if (typeof withGet.get === 'function') return withGet.get(name) ?? undefined;
  const bag = asBag(headers);
  if (!bag) return undefined;
  for (const [key, value] of Object.entries(bag))
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds (`"2"`, `"1.5"`) or an
 * HTTP-date (`"Wed, 21 Oct 2025 07:28:00 GMT"`); also OpenAI's `retry-after-ms`.
 * A date in the past is 0; anything unreadable is undefined.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number,
  unit: 'seconds' | 'ms' = 'seconds',
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.max(0, Number(text) * (unit === 'ms' ? 1 : 1000));
  if (unit === 'ms') return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

const THROTTLING_NAMES = new Set(['ModelThrottledError', 'ThrottlingException', 'TooManyRequestsException']);
const SERVER_NAMES = new Set([
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelStreamErrorException',
  'ModelNotReadyException',
  'InternalServerError',
]);
const SERVER_TYPES = new Set(['overloaded_error', 'api_error', 'server_error', 'internal_server_error']);
const CONNECTION_NAMES = new Set(['APIConnectionError', 'APIConnectionTimeoutError', 'TimeoutError']);
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const ABORT_NAMES = new Set(['AbortError', 'APIUserAbortError']);

/** The errors Node joins into one when every address of a host fails (`AggregateError`). */
function joined(link: Bag): Bag[] {
  return Array.isArray(link.errors) ? link.errors.map(asBag).filter((e): e is Bag => e !== undefined) : [];
}

/** `host:port` of the first refused connection in the chain (a system error carries both). */
function refusedEndpoint(links: Bag[]): string | undefined {
  for (const link of links.flatMap((l) => [l, ...joined(l)])) {
    if (link.code !== 'ECONNREFUSED') continue;
    if (typeof link.address === 'string' && typeof link.port === 'number') {
      const host = link.address.includes(':') ? `[${link.address}]` : link.address;
      return `${host}:${link.port}`;
    }
  }
  return undefined;
}

/** What kind of failure `error` is, and what the endpoint said about it. */
export function classifyProviderError(error: unknown, now: number = Date.now()): ProviderFailure {
  const links = chain(error);
  let status: number | undefined;
  let retryAfterMs: number | undefined;
  let failedGeneration: string | undefined;
  let code: string | undefined;
  const codes = new Set<string>();
  let type: string | undefined;
  const names = new Set<string>();
  for (const link of links) {
    if (typeof link.name === 'string') names.add(link.name);
    if (typeof link.constructor === 'function' && link.constructor.name) names.add(link.constructor.name);
    const metadata = asBag(link.$metadata);
    const candidates = [link.status, link.statusCode, metadata?.httpStatusCode];
    // The body: openai keeps `error` = the body's `error` object; anthropic keeps the whole body.
    const body = asBag(link.error);
    const inner = asBag(body?.error) ?? body;
    candidates.push(inner?.status_code, body?.status_code);
    for (const candidate of candidates)
      if (status === undefined && typeof candidate === 'number' && candidate >= 100) status = candidate;
    if (typeof link.code === 'string') code ??= link.code;
    for (const one of [link, ...joined(link)]) if (typeof one.code === 'string') codes.add(one.code);
    if (typeof inner?.code === 'string') code ??= inner.code;
    if (typeof inner?.type === 'string') type ??= inner.type;
    if (typeof inner?.failed_generation === 'string') failedGeneration ??= inner.failed_generation;
    const headers = link.headers ?? asBag(link.$response)?.headers;
    retryAfterMs ??=
      parseRetryAfter(header(headers, 'retry-after-ms'), now, 'ms') ??
      parseRetryAfter(header(headers, 'retry-after'), now);
  }
  const message = errorMessage(error);
  const failure = (kind: FailureKind): ProviderFailure => ({
    kind,
    status,
    retryAfterMs,
    failedGeneration,
    endpoint: kind === 'refused' ? refusedEndpoint(links) : undefined,
    message,
  });
  if ([...names].some((n) => ABORT_NAMES.has(n))) return failure('other');
  if (code === 'tool_use_failed' || failedGeneration !== undefined) return failure('tool_use_failed');
  if (status === 429 || [...names].some((n) => THROTTLING_NAMES.has(n)) || type === 'rate_limit_error')
    return failure('throttled');
  if ((status !== undefined && status >= 500) || [...names].some((n) => SERVER_NAMES.has(n)))
    return failure('server_error');
  if (type !== undefined && SERVER_TYPES.has(type)) return failure('server_error');
  if (status === undefined && codes.has('ECONNREFUSED')) return failure('refused');
  if (
    status === 408 ||
    [...names].some((n) => CONNECTION_NAMES.has(n)) ||
    [...codes].some((c) => CONNECTION_CODES.has(c))
  )
    return failure('connection');
  return failure('other');
}

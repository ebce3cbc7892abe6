/**
 * Every request body is bounded while it is read, never after: a body larger than its
 * route's ceiling is refused with 413 naming the limit as soon as the bytes (or the
 * Content-Length) pass it, whatever the method, and before any route buffers it. Routes
 * may keep smaller limits of their own (a workflow file, the profile); this is the ceiling
 * for all of them, the same on the local server and on Lambda.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MAX_WORKSPACE_BYTES } from '../workspace/limits.ts';
import { PAGE_API_PREFIX } from './page-api.ts';
import { MAX_SPEECH_SECONDS } from '../speech/wav.ts';
import { isSpeechUpload, MAX_SPEECH_BODY_BYTES } from './speech-upload.ts';

/** Largest request body accepted by a route without a larger ceiling of its own (decisions, webhooks, forms). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A route's ceiling, and what a body over it is told. */
export interface Ceiling {
  bytes: number;
  message: string;
}

const over = (bytes: number): Ceiling => ({
  bytes,
  message: `request body too large: the limit of this route is ${sizeInWords(bytes)}`,
});
const SPEECH: Ceiling = {
  bytes: MAX_SPEECH_BODY_BYTES,
  message: `the recording is too large: speech takes at most ${MAX_SPEECH_SECONDS} s of 16 kHz audio (${sizeInWords(MAX_SPEECH_BODY_BYTES)})`,
};

/** The ceiling of the route at `path` (a page's `/ui/api/...` call counts as the `/api/...` it runs). */
export function bodyCeiling(path: string): Ceiling {
  const api = path.startsWith(`${PAGE_API_PREFIX}/api/`) ? path.slice(PAGE_API_PREFIX.length) : path;
  if (isSpeechUpload(api)) return SPEECH;
  if (api === '/api/workspace/apply') return over(MAX_WORKSPACE_BYTES);
  return over(MAX_BODY_BYTES);
}

/** How a limit reads in a message: `1 MiB`, `256 KiB`, `1930 KiB`. */
export function sizeInWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}

/** The middleware: each request's body held to its route's ceiling (GET and HEAD carry none). */
export function bodyLimits(
  fail: (c: Context, status: ContentfulStatusCode, message: string) => Response,
): MiddlewareHandler {
  const limits = new Map<Ceiling['message'], MiddlewareHandler>();
  const limitOf = ({ bytes, message }: Ceiling): MiddlewareHandler => {
    let limit = limits.get(message);
    if (!limit) {
      limit = bodyLimit({ maxSize: bytes, onError: (c) => fail(c, 413, message) });
      limits.set(message, limit);
    }
    return limit;
  };
  return (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitOf(bodyCeiling(c.req.path))(c, next);
}

/**
 * The API as our own pages call it: `/ui/api/*` is `/api/*` for a page's session (its CSRF
 * token in `X-CSRF-Token`, as `pageApiCall` checks). On AWS the gateway admits only
 * SigV4-signed callers to `/api/*`, which a browser cannot sign; this path reaches the app
 * as the pages do, is admitted only as a page call, and then runs as the same `/api/*`
 * request inside this app (its routes, checks and workspace, unchanged).
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { pageApiCall } from './guard.ts';
import type { WebDeps } from './web-deps.ts';

/** What a page puts before `/api/...` (the Talk page's script does). */
export const PAGE_API_PREFIX = '/ui';

/** True for a page's call of the API (its body is limited when it runs as `/api/*`). */
export function isPageApiPath(path: string): boolean {
  return path.startsWith(`${PAGE_API_PREFIX}/api/`);
}

/** Registers `/ui/api/*`: a page call, run as the `/api/*` request it names. */
export function registerPageApi(
  app: Hono,
  web: WebDeps,
  fail: (c: Context, status: ContentfulStatusCode, message: string) => Response,
): void {
  app.all(`${PAGE_API_PREFIX}/api/*`, async (c) => {
    if (!(await pageApiCall(c, web)))
      return fail(c, 401, 'a page call needs its session and X-CSRF-Token: open the page again (and log in)');
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice(PAGE_API_PREFIX.length);
    const { method, headers } = c.req.raw;
    const bodyless = method === 'GET' || method === 'HEAD';
    const init: RequestInit = bodyless
      ? { method, headers }
      : { method, headers, body: await c.req.arrayBuffer() };
    return app.fetch(new Request(url, init), c.env);
  });
}

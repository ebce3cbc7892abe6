/**
 * Page routes whose code loads with their first request: a Lambda answering only the API
 * (or only other pages) never loads them, which keeps its cold start within budget. The
 * paths are listed here; their module registers the handlers on a `RouteSink`, and every
 * listed route must get one (and no other), or the first request fails loudly.
 */
import type { Context, Hono } from 'hono';

export type RouteHandler = (c: Context) => Response | Promise<Response>;

/** What a lazily loaded module registers its handlers on (the subset of Hono it uses). */
export interface RouteSink {
  get(path: string, handler: RouteHandler): unknown;
  post(path: string, handler: RouteHandler): unknown;
  put(path: string, handler: RouteHandler): unknown;
  delete(path: string, handler: RouteHandler): unknown;
}

/** Registers `routes` (`"GET /path"`) on `app`; `load` gives the function that registers their handlers. */
export function lazyRoutes(
  app: Hono,
  routes: readonly string[],
  load: () => Promise<(sink: RouteSink) => void>,
): void {
  let table: Promise<Map<string, RouteHandler>> | undefined;
  const handlers = () =>
    (table ??= load().then((register) => {
      const found = new Map<string, RouteHandler>();
      register({
        get: (path, handler) => found.set(`GET ${path}`, handler),
        post: (path, handler) => found.set(`POST ${path}`, handler),
        put: (path, handler) => found.set(`PUT ${path}`, handler),
        delete: (path, handler) => found.set(`DELETE ${path}`, handler),
      });
      const extra = [...found.keys()].filter((r) => !routes.includes(r));
      const missing = routes.filter((r) => !found.has(r));
      if (extra.length || missing.length)
        throw new Error(
          `lazy routes out of step: unlisted ${extra.join(', ')}; unhandled ${missing.join(', ')}`,
        );
      return found;
    }));
  for (const route of routes) {
    const [method = 'GET', path = '/'] = route.split(' ');
    app.on(method, path, async (c) => (await handlers()).get(route)!(c));
  }
}

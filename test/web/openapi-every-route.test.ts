/**
 * Every `/api` route the app registers is in the served `/api/openapi.json`, with its path
 * parameters, its request body and its responses' schemas: the document is written from the
 * routes' own definitions (shared/web/api-route.ts), so a route added without one fails here.
 * Each route is also called once: a module that serves a route its list does not name (or
 * not one it names) fails its first request (lazy-routes.ts), never silently.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Hono } from 'hono';
import { makeHarness, type Harness } from './support.ts';

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

/** POSTs that take no body (the path says it all). */
const NO_BODY = new Set([
  'post /api/workflows/{id}/runs',
  'post /api/runs/{id}/accept-suggestions',
  'post /api/rules/{id}/undo',
  'post /api/schedules/{workflow}/pause',
  'post /api/schedules/{workflow}/resume',
]);

/** Every `/api` route `app` registers, as OpenAPI writes it (`get /api/runs/{id}`). */
function apiRoutes(app: Hono): { method: string; path: string }[] {
  const seen = new Set<string>();
  return app.routes
    .filter((r) => r.path.startsWith('/api/') && r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:(\w+)/g, '{$1}') }))
    .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`));
}

/** The registered routes the document leaves out. */
function undocumented(app: Hono, doc: Doc): string[] {
  return apiRoutes(app)
    .filter(({ method, path }) => !doc.paths[path]?.[method])
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
}

let h: Harness;
let doc: Doc;
beforeAll(async () => {
  h = await makeHarness();
  const res = await h.app.request('/api/openapi.json'); // open: no key
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});
afterAll(async () => {
  await h.cleanup();
});

describe('/api/openapi.json, written from the routes’ definitions', () => {
  it('documents every /api route the app registers, and fails for one without a definition', () => {
    const routes = apiRoutes(h.app);
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(undocumented(h.app, doc)).toEqual([]);

    const extra = new Hono();
    extra.route('/', h.app);
    extra.get('/api/made-up', (c) => c.json({}));
    expect(undocumented(extra, doc)).toEqual(['GET /api/made-up']);
  });

  it("gives each its path parameters, its body's schema and its responses' schemas", () => {
    for (const { method, path } of apiRoutes(h.app)) {
      const route = `${method} ${path}`;
      const op = doc.paths[path]![method]!;
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      expect({ route, declared }).toEqual({ route, declared: inPath });

      const takesBody = method === 'put' || (method === 'post' && !NO_BODY.has(route));
      expect({ route, body: op.requestBody !== undefined }).toEqual({ route, body: takesBody });
      for (const [media, content] of Object.entries(op.requestBody?.content ?? {}))
        expect({ route, media, schema: content.schema !== undefined }).toEqual({
          route,
          media,
          schema: true,
        });

      const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect({ route, ok: ok.length > 0 }).toEqual({ route, ok: true });
      for (const [status, response] of ok) {
        if (status === '204') continue;
        const schemas = Object.values(response.content ?? {}).map((c) => c.schema);
        expect({ route, status, schema: schemas.length > 0 && schemas.every(Boolean) }).toEqual({
          route,
          status,
          schema: true,
        });
      }
      expect({ route, errors: Object.keys(op.responses).some((s) => /^[45]\d\d$/.test(s)) }).toEqual({
        route,
        errors: method !== 'get' || path !== '/api/openapi.json',
      });
    }
  });

  it('every registered /api route is served by the module that defines it (none fails as unlisted)', async () => {
    for (const { method, path } of apiRoutes(h.app)) {
      const url = path.replace(/\{\w+\}/g, 'nope');
      const res = await h.app.request(url, { method: method.toUpperCase(), headers: h.auth() });
      const text = await res.text();
      expect({ route: `${method} ${path}`, status: res.status }).not.toEqual({
        route: `${method} ${path}`,
        status: 500,
      });
      expect(text).not.toMatch(/no route/);
    }
  });
});

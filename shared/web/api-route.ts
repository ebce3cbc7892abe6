/**
 * One definition per route: its path, query, body and responses as zod schemas. `serveRoute`
 * registers it on the app and validates each request against it (a one-line 400 naming the
 * first thing wrong); openapi-routes.ts gives the same definition to `@hono/zod-openapi`,
 * which writes `/api/openapi.json` from it (loaded on first use, so the library and the
 * response schemas stay off a cold start). Every `/api` route has one (api-modules.ts lists
 * them; test/web/openapi-every-route.test.ts fails for a route without).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import type { ResponseName } from './api-responses.ts';
import type { RouteHandler, RouteSink } from './lazy-routes.ts';

/** An error response of the document's components (`#/components/responses/<name>`). */
export type ErrorResponse =
  'BadRequest' | 'Unauthorized' | 'NotFound' | 'Conflict' | 'TooLarge' | 'Unprocessable' | 'ServerError';

/** A response: its description and, unless it has none (204), its schema (named in api-responses.ts) and media type (default JSON). */
export interface Reply {
  description: string;
  schema?: ResponseName;
  media?: string;
  /** Headers it may carry: each name with what it says. */
  headers?: Record<string, string>;
}

/** A JSON body `serveRoute` validates, and what a wrong one is told. */
export interface JsonBody<B extends z.ZodType> {
  schema: B;
  /** The shape an error message shows: `body must be JSON like <shape>`. */
  shape: string;
  /** Said instead of the first issue when the JSON does not fit the schema. */
  invalid?: string;
  /** An empty body is read as none (the schema decides whether that is allowed). */
  optional?: true;
}

export interface ApiRoute<
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  P extends z.ZodObject = z.ZodObject,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** As OpenAPI writes it: `/api/runs/{id}/accept-suggestions`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The path's parameters (every one a non-empty string). */
  params?: P;
  /** The query it takes; absent, it reads none. */
  query?: Q;
  /** The JSON body it takes, validated before the handler. */
  body?: JsonBody<B>;
  /** Or a body the handler reads itself (YAML, Markdown, audio, a form): each media type with the zod schema its reader checks. */
  content?: Record<string, z.ZodType>;
  /** Open without a key (only the document itself). */
  open?: true;
  /** Each response: a Reply, or an error response. */
  responses: Record<string, Reply | ErrorResponse>;
}

/** The route as written (the identity, for its types). */
export function defineRoute<Q extends z.ZodType, B extends z.ZodType, P extends z.ZodObject>(
  route: ApiRoute<Q, B, P>,
): ApiRoute<Q, B, P> {
  return route;
}

/** What a route's handler gets: the request's context, its query and its body, validated. */
export interface RouteInput<Q extends z.ZodType, B extends z.ZodType, P extends z.ZodObject> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

/** Registers `route` on `app` (or a lazy module's sink), after `middleware`, its path, query and body validated before `handler`. */
export function serveRoute<Q extends z.ZodType, B extends z.ZodType, P extends z.ZodObject>(
  app: Hono | RouteSink,
  route: ApiRoute<Q, B, P>,
  handler: (c: Context, input: RouteInput<Q, B, P>) => Promise<Response>,
  ...middleware: MiddlewareHandler[]
): void {
  const path = route.path.replace(/\{(\w+)\}/g, ':$1');
  const serve: MiddlewareHandler = async (c) => {
    const params = route.params ? validQuery(route.params, c.req.param(), 'path') : {};
    const query = route.query ? validQuery(route.query, c.req.query()) : undefined;
    const body = route.body ? await validBody(c, route.body) : undefined;
    return handler(c, {
      params: params as z.output<P>,
      query: query as z.output<Q>,
      body: body as z.output<B>,
    });
  };
  if ('on' in app) app.on(route.method.toUpperCase(), [path], ...middleware, serve);
  else app[route.method](path, afterMiddleware(middleware, serve));
}

/** `handler` run after `middleware` in turn, as Hono runs a route's handlers (one may answer instead). */
function afterMiddleware(middleware: MiddlewareHandler[], handler: MiddlewareHandler): RouteHandler {
  return async (c) => {
    let answer: Response | undefined;
    const step = async (i: number): Promise<void> => {
      const next = middleware[i] ?? handler;
      const res = await next(c, () => (next === handler ? Promise.resolve() : step(i + 1)));
      if (res instanceof Response) answer ??= res;
    };
    await step(0);
    return answer ?? c.res;
  };
}

/** The query parsed by `schema`, or a 400 naming the first thing wrong, in one line. */
function validQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string>,
  part: 'query' | 'path' = 'query',
): z.output<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new HTTPException(400, { message: `${part} ${where}${issue?.message ?? 'is not valid'}` });
}

/** The body as JSON parsed by `schema`, or a 400 naming the first thing wrong, in one line. */
async function validBody<S extends z.ZodType>(c: Context, body: JsonBody<S>): Promise<z.output<S>> {
  const text = await c.req.text();
  let raw: unknown;
  try {
    raw = body.optional && text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    throw new HTTPException(400, { message: `body must be JSON like ${body.shape}` });
  }
  const parsed = body.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new HTTPException(400, { message: body.invalid ?? firstIssue(parsed.error, body.shape) });
}

/** The first thing wrong with a body, in one line (with the shape expected, unless it is only too long). */
export function firstIssue(error: z.ZodError, shape: string): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  const tooMany = issue?.code === 'too_big' && issue.path.length === 1;
  return `body ${where}${issue?.message ?? 'is not valid'}${tooMany ? '' : ` (expected ${shape})`}`;
}

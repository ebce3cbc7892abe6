/**
 * The HTTP face of Handoff: a status page, the JSON API, live run events (SSE)
 * and signed webhooks. Route handlers use only what hono gives (plus node:crypto
 * for constant-time comparison), so the same app can later run on Lambda.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { html, raw } from 'hono/html';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { Env } from '../config/env.ts';
import {
  AlreadyDecidedError,
  InvalidInputError,
  NotFoundError,
  VersionConflictError,
} from '../errors/index.ts';
import { feed, type FeedEvent } from '../events/feed.ts';
import { decide } from '../runs/decide.ts';
import { listPending } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { getRun, listRuns } from '../runs/run-repository.ts';
import { summarise } from '../runs/settle.ts';
import { createRunFor } from '../runs/start-run.ts';
import { toPendingJson } from '../runs/views.ts';
import { getWorkflow, listWorkflows } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { FileLinkKey, type LinkKey } from '../links/link-key.ts';
import { registerDecideRoutes } from './decide-routes.ts';
import { openApiDocument } from './openapi.ts';
import { createRunLauncher, oneLine, type RunLauncher } from './run-launcher.ts';

/** Largest request body accepted (decisions, webhooks). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Interval of the SSE keep-alive comment. */
export const KEEP_ALIVE_MS = 15_000;

const BAD_SIGNATURE = 'missing or wrong X-Handoff-Signature (expected sha256=<hex HMAC-SHA256 of the body>)';
const DECISION_SHAPE = '(expected {"action": string, "note"?: string})';
const DecisionBody = z.strictObject({
  action: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  note: z.string({ error: 'must be a string or null' }).nullable().optional(),
});

/** What the app is built from; `runner` defaults to executing runs in this process. */
export interface AppDeps {
  engine: EngineDeps;
  env: Env;
  runner?: RunLauncher;
  /** Signs and verifies decision links; defaults to the key in the state directory. */
  linkKey?: LinkKey;
  /** A public deployment: decision pages open only from a signed link. */
  requireToken?: boolean;
  /** `gateway`: API Gateway already authenticated `/api/*` callers (IAM); else the bearer key. */
  apiAuth?: 'bearer' | 'gateway';
}

/** Builds the Handoff HTTP app. */
export function createApp(deps: AppDeps): Hono {
  const { engine, env } = deps;
  const runner = deps.runner ?? createRunLauncher(engine);
  const app = new Hono();
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => fail(c, 413, 'request body too large'),
  });

  app.use(
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"] },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.notFound((c) => fail(c, 404, `no route ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return fail(c, error.status as ContentfulStatusCode, error.message);
    if (error instanceof NotFoundError) return fail(c, 404, error.message);
    if (error instanceof AlreadyDecidedError || error instanceof VersionConflictError)
      return fail(c, 409, error.message);
    if (error instanceof InvalidInputError) return fail(c, 422, error.message);
    console.error(`handoff: ${c.req.method} ${c.req.path} failed: ${oneLine(error.message)}`);
    return fail(c, 500, 'internal error; see the server log');
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  registerDecideRoutes(app, {
    engine,
    linkKey: deps.linkKey ?? new FileLinkKey(env.HANDOFF_STATE_DIR),
    requireToken: deps.requireToken ?? false,
  });
  app.get('/', async (c) => c.html(await statusPage(engine)));

  app.get('/api/openapi.json', (c) => c.json(openApiDocument()));
  if (deps.apiAuth !== 'gateway') app.use('/api/*', bearer(env, false));
  app.use('/events/*', bearer(env, true));

  app.get('/api/workflows', async (c) =>
    c.json((await listWorkflows(engine.store)).map((w) => ({ id: w.id, name: w.name, trigger: w.trigger }))),
  );

  app.post('/api/workflows/:id/runs', async (c) => {
    const run = await createRunFor(engine, c.req.param('id'), { kind: 'manual', detail: null });
    runner.launch(run);
    return c.json({ run_id: run.id }, 202);
  });

  app.get('/api/runs/:id', async (c) => c.json(summarise(await getRun(engine.store, c.req.param('id')))));

  app.get('/api/pending', async (c) => c.json((await listPending(engine.store)).map(toPendingJson)));

  app.post('/api/decisions/:id', limit, async (c) => {
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      return fail(c, 400, 'body must be JSON like {"action": "archive", "note": "why"}');
    }
    const body = DecisionBody.safeParse(raw);
    if (!body.success) {
      const issue = body.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return fail(c, 400, `body ${where}${issue?.message ?? 'is not valid'} ${DECISION_SHAPE}`);
    }
    return c.json(await decide(engine, c.req.param('id'), body.data.action, body.data.note ?? null));
  });

  app.get('/events/:runId', async (c) => {
    const runId = (await getRun(engine.store, c.req.param('runId'))).id; // 404 for an unknown run
    const lastSeen = Number(c.req.header('Last-Event-ID') ?? 0);
    return streamSSE(c, (stream) => relayFeed(runId, Number.isFinite(lastSeen) ? lastSeen : 0, stream));
  });

  app.post('/hooks/:workflowId', limit, async (c) => {
    const secret = env.HANDOFF_WEBHOOK_SECRET;
    if (!secret) return fail(c, 401, 'webhooks are disabled: set HANDOFF_WEBHOOK_SECRET on the server');
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (!signatureMatches(secret, body, c.req.header('X-Handoff-Signature')))
      return fail(c, 401, BAD_SIGNATURE);
    const workflow = await getWorkflow(engine.store, c.req.param('workflowId'));
    const detail = new TextDecoder().decode(body);
    const run = await createRunFor(engine, workflow.id, { kind: 'webhook', detail });
    runner.launch(run);
    return c.json({ run_id: run.id }, 202);
  });

  return app;
}

/** A JSON error: `{"error": "<one line>"}`. */
function fail(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ error: oneLine(message) }, status);
}

/** Constant-time string equality (hashing first makes the lengths equal). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Requires `Authorization: Bearer <HANDOFF_API_KEY>` (or `?key=` where EventSource needs it); fails closed. */
function bearer(env: Env, allowQueryKey: boolean): MiddlewareHandler {
  return async (c, next) => {
    const expected = env.HANDOFF_API_KEY;
    if (!expected) return fail(c, 401, 'the API is disabled: set HANDOFF_API_KEY on the server');
    const header = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '')?.[1];
    const given = header ?? (allowQueryKey ? c.req.query('key') : undefined);
    if (given === undefined || !sameSecret(given, expected))
      return fail(c, 401, 'missing or wrong bearer token');
    await next();
    return undefined;
  };
}

/** Checks `sha256=<hex>` against the HMAC-SHA256 of the raw body bytes. */
function signatureMatches(secret: string, body: Uint8Array, header: string | undefined): boolean {
  const hex = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '')?.[1];
  if (!hex) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
  return timingSafeEqual(given, expected);
}

type SseStream = Parameters<Parameters<typeof streamSSE>[1]>[0];

/** Replays the run's feed after `lastSeen`, then relays live events until the client goes away. */
async function relayFeed(runId: string, lastSeen: number, stream: SseStream): Promise<void> {
  const queue: FeedEvent[] = [];
  let wake: (() => void) | undefined;
  // Subscribe before replaying so nothing emitted in between is lost; seq dedupes.
  const unsubscribe = feed.subscribe(runId, (event) => {
    queue.push(event);
    wake?.();
  });
  stream.onAbort(() => wake?.());
  try {
    queue.unshift(...feed.history(runId, lastSeen));
    while (!stream.aborted) {
      const event = queue.shift();
      if (event) {
        if (event.seq <= lastSeen) continue;
        lastSeen = event.seq;
        await stream.writeSSE({ event: event.kind, data: JSON.stringify(event), id: String(event.seq) });
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), KEEP_ALIVE_MS);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      wake = undefined;
      if (!woken && !stream.aborted) await stream.write(': keep-alive\n\n');
    }
  } finally {
    unsubscribe();
  }
}

/** A short description of a workflow's trigger. */
function triggerText(workflow: Workflow): string {
  if (workflow.trigger.schedule !== undefined) return `schedule ${workflow.trigger.schedule}`;
  return workflow.trigger.webhook ? 'webhook' : 'manual';
}

/** The page's fixed CSS (a constant, never user data). */
const STYLE = `body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #111827; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e5e7eb; }
.pending { background: #f59e0b; color: #111827; padding: .1rem .5rem; border-radius: .25rem; font-weight: 600; }
code { background: #f3f4f6; padding: 0 .25rem; }`;

/** A table of escaped cells, or `empty` when there are no rows. */
function table(headers: string[], rows: string[][], empty: ReturnType<typeof html>) {
  if (rows.length === 0) return empty;
  const cells = (tag: 'th' | 'td', values: string[]) =>
    values.map((v) => (tag === 'th' ? html`<th>${v}</th>` : html`<td>${v}</td>`));
  return html`<table>
    <tr>
      ${cells('th', headers)}
    </tr>
    ${rows.map(
      (row) =>
        html`<tr>
          ${cells('td', row)}
        </tr>`,
    )}
  </table>`;
}

/** The status page: workflows, recent runs, pending count. Every value is escaped by `html`. */
async function statusPage(engine: EngineDeps) {
  const [workflows, runs, pending] = await Promise.all([
    listWorkflows(engine.store),
    listRuns(engine.store),
    listPending(engine.store),
  ]);
  const flows = workflows.map((w) => [w.id, w.name, triggerText(w)]);
  const recent = runs.slice(0, 20).map((r) => [r.id, r.workflow_id, r.status, r.started_at]);
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content="10" />
        <title>Handoff</title>
        <style>
          ${raw(STYLE)}
        </style>
      </head>
      <body>
        <h1>Handoff</h1>
        <p>
          <span class="pending">${pending.length} pending decision${pending.length === 1 ? '' : 's'}</span>
          Answer them with <code>handoff pending</code>, then
          <code>handoff decide ID ACTION --note "why"</code>.
        </p>
        <h2>Workflows</h2>
        ${table(['id', 'name', 'trigger'], flows, html`<p>No workflows yet: <code>handoff workflows add FILE</code>.</p>`)}
        <h2>Recent runs</h2>
        ${table(['run', 'workflow', 'status', 'started'], recent, html`<p>No runs yet: <code>handoff run WORKFLOW_ID</code>.</p>`)}
      </body>
    </html>`;
}

/**
 * The HTTP face of Handoff: the web pages, the JSON API, live run events (SSE)
 * and signed webhooks. Route handlers use only what hono gives (plus node:crypto
 * for HMACs and constant-time comparison), so the same app runs on Lambda.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { runAs } from '../access/actor.ts';
import { AdministratorSettingError } from '../access/admin-settings.ts';
import { memberOf } from '../access/member.ts';
import { CredentialDecryptError } from '../credentials/cipher.ts';
import { log } from '../logging/log.ts';
import type { Env } from '../config/env.ts';
import {
  AlreadyDecidedError,
  InvalidCursorError,
  InvalidInputError,
  NotFoundError,
  VersionConflictError,
} from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { getRun } from '../runs/run-repository.ts';
import { FileLinkKey, type LinkKey } from '../links/link-key.ts';
import { registerAssetRoutes } from './assets/routes.ts';
import { bodyLimits, MAX_BODY_BYTES } from './body-limits.ts';
import type { ChatTurnSender } from './chat-api-routes.ts';
import { registerApiModules, registerDocumentModule } from './api-modules.ts';
import { lazyRoutes } from './lazy-routes.ts';
import { registerDecideRoutes } from './decide-routes.ts';
import { registerHookRoutes } from './hook-routes.ts';
import { hostGuard, LOOPBACK_HOSTS, type HostRules } from './host-guard.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';
import { registerArtifactPages } from './artifact-routes.ts';
import { registerSchedulePages } from './schedule-routes.ts';
import { registerPageRoutes } from './page-routes.ts';
import { registerLazyConversationPages, registerLazyManagePages, registerLazyPages } from './lazy-pages.ts';
import { createSpeech, type Speech } from '../speech/speech.ts';
import { pageApiCall } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import { iamCaller, registerIamApi } from './iam-api.ts';
import { registerPageApi } from './page-api.ts';
import { createRunLauncher, oneLine, type RunLauncher } from './run-launcher.ts';
import { Sessions } from './session.ts';
import { streamRunWhereLive } from './sse.ts';
import type { WebDeps } from './web-deps.ts';
import { currentScope, isApiPath, workspaceScope } from './workspace-scope.ts';
import { registerWorkspaceSwitch } from './workspace-routes.ts';
import { isStoredKeyShape, verifyApiKey } from '../workspaces/api-keys.ts';
import type { Platform } from '../workspaces/platform.ts';

export { MAX_BODY_BYTES } from './body-limits.ts';
export { KEEP_ALIVE_MS } from './sse.ts';

/** The Content-Security-Policy of every response: nothing inline, nothing from elsewhere. */
const CSP = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'"],
  scriptSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** What the app is built from; `runner` defaults to executing runs in this process. */
export interface AppDeps {
  engine: EngineDeps;
  env: Env;
  runner?: RunLauncher;
  /** Signs and verifies decision links; defaults to the key in the state directory. */
  linkKey?: LinkKey;
  /** A public deployment: decision pages open only from a signed link. */
  requireToken?: boolean;
  /** Served behind API Gateway: IAM callers reach `/admin/api/*` (iam-api.ts) as administrators. */
  iamApi?: boolean;
  /** Where decision links point when the Settings page stores none (default: the engine's at start). */
  uiBaseUrlDefault?: () => string;
  /**
   * How the run inspector follows a run: `sse` streams this process's feed (the local
   * server); `poll` re-reads the page (Lambda: the feed is in other functions, and API
   * Gateway buffers responses). Default: `poll` when `requireToken`, else `sse`.
   */
  liveFeed?: 'sse' | 'poll';
  /** Told when a workflow is saved or removed through the API (AWS: schedule sync). */
  onWorkflowChange?: WorkflowChangeListener;
  /** Served by a Lambda function: workflows whose source needs local folders are refused. */
  inLambda?: boolean;
  /**
   * Host names the app answers to besides its UI base URLs' (any other `Host` is refused):
   * default the loopback names; Lambda: API Gateway's domain name.
   */
  hosts?: HostRules['hosts'];
  /**
   * The workspaces, when this app serves more than one (the local server, the Lambda API):
   * each request works in the one it names. Without it, only `default` (the engine's).
   */
  platform?: Platform | undefined;
  /** Hears and speaks for the Talk page and the speech API; default: HANDOFF_SPEECH_PROVIDER's. */
  speech?: Speech;
  /** Where assistant turns sent to the API run (AWS: the agent function); absent: in the request. */
  sendChatTurn?: ChatTurnSender;
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

  const linkKey = deps.linkKey ?? new FileLinkKey(env.HANDOFF_STATE_DIR);
  const initialUiBase = engine.settings.uiBaseUrl;
  const web: WebDeps = {
    // The request's own workspace engine (outside a request: the one the app was made with).
    get engine() {
      return currentScope()?.engine ?? engine;
    },
    get workspace() {
      return currentScope()?.workspace;
    },
    platform: deps.platform,
    env,
    runner,
    linkKey,
    sessions: new Sessions(linkKey, env.HANDOFF_UI_PASSWORD),
    requireToken: deps.requireToken ?? false,
    uiBaseUrlDefault: deps.uiBaseUrlDefault ?? (() => initialUiBase),
    liveFeed: deps.liveFeed ?? (deps.requireToken ? 'poll' : 'sse'),
  };

  // `same-origin`: no Referer (so no link token) leaves the site, and our own form POSTs
  // carry their real Origin (under `no-referrer` a browser sends `Origin: null`).
  app.use(
    secureHeaders({
      contentSecurityPolicy: CSP,
      crossOriginEmbedderPolicy: false,
      referrerPolicy: 'same-origin',
    }),
  );
  app.use(
    hostGuard({
      hosts: deps.hosts ?? (() => LOOPBACK_HOSTS),
      // The one in force (Settings may change it), the default and the environment's.
      baseUrls: () => [engine.settings.uiBaseUrl, web.uiBaseUrlDefault(), env.UI_BASE_URL],
    }),
  );
  app.use(async (c, next) => {
    await next();
    // Pages carry CSRF tokens and private data: never cached.
    if (c.res.headers.get('Content-Type')?.startsWith('text/html'))
      c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use(bodyLimits(fail));
  app.notFound((c) =>
    isMachinePath(c.req.path)
      ? fail(c, 404, `no route ${c.req.method} ${c.req.path}`)
      : c.html(
          messagePage('Not found', `There is no page at ${c.req.path}.`, {
            href: '/',
            text: 'Back to the overview',
          }),
          404,
        ),
  );
  const inWorkspace = workspaceScope(deps.platform, engine, fail);
  // The API and event streams pick their workspace after the bearer check (a key may be scoped).
  app.use((c, next) => (isApiPath(c.req.path) ? next() : inWorkspace(c, next)));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return fail(c, error.status as ContentfulStatusCode, error.message);
    if (error instanceof NotFoundError) return fail(c, 404, error.message);
    if (error instanceof AlreadyDecidedError || error instanceof VersionConflictError)
      return fail(c, 409, error.message);
    if (error instanceof InvalidCursorError) return fail(c, 400, error.message);
    if (error instanceof InvalidInputError) return fail(c, 422, error.message);
    if (error instanceof AdministratorSettingError) return fail(c, 403, error.message);
    // A stored credential this server cannot open (copied from another installation, damaged).
    if (error instanceof CredentialDecryptError) return fail(c, 422, error.message);
    log.error(`${c.req.method} ${c.req.path} failed: ${oneLine(error.message)}`);
    return fail(c, 500, 'internal error; see the server log');
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  registerPageApi(app, web, fail);
  registerAssetRoutes(app);
  registerPageRoutes(app, web);
  // Activity (its lists, grouping and forms) loads with its first request, not with every cold start.
  lazyRoutes(app, ['GET /activity', 'POST /activity/accept', 'POST /activity/answer'], async () => {
    const { registerActivityRoutes } = await import('./activity-routes.ts');
    return (sink) => registerActivityRoutes(sink, web);
  });
  registerDecideRoutes(app, web);
  registerLazyManagePages(app, web);
  registerWorkspaceSwitch(app, web);
  registerArtifactPages(app, web);
  registerSchedulePages(app, web, deps.onWorkflowChange ?? (async () => undefined));
  registerLazyPages(app, web, deps.onWorkflowChange ?? (async () => undefined), deps.inLambda ?? false);
  // The demo's "Deliver more demo mail" loads with its first use.
  lazyRoutes(app, ['POST /demo/more'], async () => {
    const { registerDemoRoutes } = await import('./demo-routes.ts');
    return (sink) => registerDemoRoutes(sink, web);
  });

  registerLazyConversationPages(app, web, deps.sendChatTurn);

  // The document, like every `/api` route, loads with its first request (api-modules.ts).
  registerDocumentModule(app);
  if (deps.iamApi) registerIamApi(app, fail);
  app.use('/api/*', bearer(env, deps.platform, false, web));
  app.use('/events/*', bearer(env, deps.platform, true));
  app.use('/api/*', inWorkspace);
  app.use('/events/*', inWorkspace);
  registerApiModules(app, {
    web,
    onWorkflowChange: deps.onWorkflowChange ?? (async () => undefined),
    inLambda: deps.inLambda ?? false,
    speech: deps.speech ?? createSpeech(env),
    sendChatTurn: deps.sendChatTurn,
  });

  app.get('/events/:runId', async (c) => {
    const runId = (await getRun(web.engine.store, c.req.param('runId'))).id; // 404 for an unknown run
    return streamRunWhereLive(c, web.liveFeed, web.engine.workspace, runId);
  });

  registerHookRoutes(app, web, limit);

  return app;
}

/** Paths read by programs (the API, event streams, hooks, health): their errors are JSON. */
function isMachinePath(path: string): boolean {
  return /^\/(api|events|hooks|admin|assets)(\/|$)/.test(path) || path === '/healthz';
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

/**
 * Requires `Authorization: Bearer <key>` (or `?key=` where EventSource needs it); fails
 * closed. The key is HANDOFF_API_KEY (every workspace) or, with workspaces, one made by
 * `handoff keys add` (limited to its workspace, noted for the workspace check). With `web`,
 * a page's own call (its session and CSRF token in `X-CSRF-Token`, no Authorization) passes too.
 */
export function bearer(
  env: Env,
  platform: Platform | undefined,
  allowQueryKey: boolean,
  web?: WebDeps,
): MiddlewareHandler {
  return async (c, next) => {
    if (iamCaller(c)) return next(); // an administrator, signed with SigV4 and checked by API Gateway
    if (web && !c.req.header('Authorization') && (await pageApiCall(c, web))) return next();
    const expected = env.HANDOFF_API_KEY;
    if (!expected && !platform) return fail(c, 401, 'the API is disabled: set HANDOFF_API_KEY on the server');
    const header = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '')?.[1];
    const given = header ?? (allowQueryKey ? c.req.query('key') : undefined);
    if (given === undefined) return fail(c, 401, 'missing or wrong bearer token');
    if (platform && isStoredKeyShape(given)) {
      const key = await verifyApiKey(platform.store, given);
      if (!key) return fail(c, 401, 'missing or wrong bearer token');
      c.set('keyWorkspace', key.workspace);
      // A scoped key is a member of its workspace: no administrator's settings (access/).
      if (key.workspace !== null) {
        await runAs(memberOf(env, key.workspace), () => next());
        return undefined;
      }
    } else if (!expected) {
      return fail(
        c,
        401,
        'the API takes keys made by `handoff keys add`, or set HANDOFF_API_KEY on the server',
      );
    } else if (!sameSecret(given, expected)) {
      return fail(c, 401, 'missing or wrong bearer token');
    }
    await next();
    return undefined;
  };
}

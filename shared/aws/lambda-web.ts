import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Context as HonoContext, Hono } from 'hono';
import { handle, type LambdaEvent } from 'hono/aws-lambda';
import type { Env } from '../config/env.ts';
import type { LinkKey } from '../links/link-key.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { createApp, type AppDeps } from '../web/app.ts';
import { createRunLauncher, type RunLauncher } from '../web/run-launcher.ts';
import type { WorkflowChangeListener } from '../web/workflow-routes.ts';
import type { ChatTurnSender } from '../web/chat-api-routes.ts';
import type { Platform } from '../workspaces/platform.ts';

export interface LambdaWebOptions {
  engine: EngineDeps;
  /** The workspaces; each request works in the one `X-Handoff-Workspace` (or `?workspace=`) names. */
  platform?: Platform;
  /** The app reads its secrets (API key, webhook secret) from here per request. */
  env: Env;
  linkKey: LinkKey;
  onWorkflowChange: WorkflowChangeListener;
  /** Where assistant turns sent to the API run (the agent function); absent: this function serves no chat. */
  sendChatTurn?: ChatTurnSender;
}

/**
 * The HTTP app as the API and webhook functions serve it: it answers only at API
 * Gateway's domain name and UI_BASE_URL's host, decision pages open only from a
 * signed link, `/api/*` takes API keys (the deployment's, or a workspace's from the table),
 * `/admin/api/*` IAM callers (signed, checked by API Gateway), and a started run is executed
 * in this invocation (in dispatch mode that is only the trigger node: it
 * dispatches the executor and returns).
 */
export function lambdaWebApp(opts: LambdaWebOptions): { app: Hono; launcher: RunLauncher } {
  const launcher = createRunLauncher(opts.engine);
  const deps: AppDeps = {
    engine: opts.engine,
    platform: opts.platform,
    env: opts.env,
    runner: launcher,
    linkKey: opts.linkKey,
    requireToken: true,
    iamApi: true,
    onWorkflowChange: opts.onWorkflowChange,
    ...(opts.sendChatTurn ? { sendChatTurn: opts.sendChatTurn } : {}),
    inLambda: true,
    // Besides UI_BASE_URL (the custom domain, if the stack was given one): API Gateway's own name.
    hosts: (c) => [gatewayDomainName(c)],
  };
  return { app: createApp(deps), launcher };
}

/** The domain name API Gateway received the request at (hono's Lambda bindings), if any. */
function gatewayDomainName(c: HonoContext): string | undefined {
  const bindings = c.env as { requestContext?: { domainName?: unknown } } | undefined;
  const name = bindings?.requestContext?.domainName;
  return typeof name === 'string' ? name : undefined;
}

export type WebHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Serves API Gateway (HTTP API, payload v2) events with the app, then waits for any run
 * it launched: Lambda freezes the container once the handler returns, so work left in
 * the background would stall until the next request.
 */
export function lambdaWebHandler(app: Hono, launcher: RunLauncher): WebHandler {
  const serve = handle(app);
  return async (event, context) => {
    try {
      // hono's event type is its own copy of the payload v2 shape (body required); the same object.
      const result = await serve(event as unknown as LambdaEvent, context);
      const headers = Object.fromEntries(
        Object.entries(result.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
      );
      return { ...result, headers };
    } finally {
      await launcher.idle();
    }
  };
}

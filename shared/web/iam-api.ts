/**
 * The administrator's API on AWS: `/admin/api/*` is the `/api/*` request it names, sent by an
 * IAM caller. API Gateway checks the SigV4 signature on that route (IAM auth) and says who
 * signed in the event's `requestContext.authorizer.iam`; the app runs the request as an
 * administrator, in the workspace its `X-Handoff-Workspace` names. `/api/*` itself takes API
 * keys, checked by the app against the table (a workspace's scoped keys work as they do locally).
 * A request that reaches `/admin/api/*` without the gateway's IAM context is refused.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** What the administrator's requests are prefixed with. */
export const IAM_API_PREFIX = '/admin';

/** What the app's own re-dispatch of an IAM caller's request carries in its bindings. */
interface IamBindings {
  handoffIamCaller?: string;
  requestContext?: { authorizer?: { iam?: { userArn?: unknown } } };
}

/** The IAM principal API Gateway verified for this request, if it did. */
export function iamCaller(c: Context): string | undefined {
  const bindings = c.env as IamBindings | undefined;
  if (typeof bindings?.handoffIamCaller === 'string') return bindings.handoffIamCaller;
  const arn = bindings?.requestContext?.authorizer?.iam?.userArn;
  return typeof arn === 'string' && arn !== '' ? arn : undefined;
}

/** Registers `/admin/api/*`: the IAM caller's request, run as `/api/*` by an administrator. */
export function registerIamApi(
  app: Hono,
  fail: (c: Context, status: ContentfulStatusCode, message: string) => Response,
): void {
  app.all(`${IAM_API_PREFIX}/api/*`, async (c) => {
    const caller = iamCaller(c);
    if (!caller)
      return fail(
        c,
        403,
        `${IAM_API_PREFIX}/api/* is for IAM callers: sign the request with AWS SigV4 (execute-api)`,
      );
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice(IAM_API_PREFIX.length);
    const { method, headers } = c.req.raw;
    const bodyless = method === 'GET' || method === 'HEAD';
    const init: RequestInit = bodyless
      ? { method, headers }
      : { method, headers, body: await c.req.arrayBuffer() };
    const bindings: IamBindings = { ...(c.env as object), handoffIamCaller: caller };
    return app.fetch(new Request(url, init), bindings);
  });
}

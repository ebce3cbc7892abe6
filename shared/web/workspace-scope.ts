/**
 * Which workspace a request works in, and the engine that goes with it. The API names it
 * in the `X-Handoff-Workspace` header (absent: `default`, or the only workspace a scoped
 * key may see); pages remember the one picked in the sidebar's switcher (a cookie). A link
 * the product made (a decision link, a hook URL, a page's form) carries `?workspace=<id>`:
 * an id, never a name, so a workspace renamed onto a name another one had never receives
 * that one's links or hooks. The request's engine is kept in an AsyncLocalStorage for
 * the length of the request, so `web.engine` is always the request's own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { errorMessage, NotFoundError } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';
import type { Platform } from '../workspaces/platform.ts';
import type { Workspace } from '../workspaces/registry.ts';
import { keepWorkspace } from './keep-workspace.ts';
import type { WaitingIn } from './waiting-everywhere.ts';

export const WORKSPACE_HEADER = 'X-Handoff-Workspace';
export const WORKSPACE_COOKIE = 'handoff_workspace';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the bearer check: the workspace id a stored API key is limited to (null: all). */
    keyWorkspace: string | null;
  }
}

export interface RequestScope {
  workspace: Workspace;
  engine: EngineDeps;
  /** Every workspace's count of waiting decisions, once counted in this request (waiting-everywhere.ts). */
  waiting?: Promise<WaitingIn[]>;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The API and the event streams: authenticated by a bearer key before their workspace is chosen. */
export function isApiPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/events/');
}

/** The request's workspace and engine, or undefined outside a request. */
export function currentScope(): RequestScope | undefined {
  return scopes.getStore();
}

const DEFAULT_ONLY: Workspace = {
  id: DEFAULT_WORKSPACE,
  name: DEFAULT_WORKSPACE,
  created_at: '',
  removed_at: null,
};

/**
 * Runs the rest of the request in its workspace. Without a platform (an app made around
 * one engine) only `default` exists. An unknown workspace, or one a scoped key may not
 * see, is a 404 that does not say whether it exists.
 */
export function workspaceScope(
  platform: Platform | undefined,
  base: EngineDeps,
  fail: (c: Context, status: 404, message: string) => Response,
): MiddlewareHandler {
  return async (c, next) => {
    const isApi = isApiPath(c.req.path);
    const keyWorkspace = c.get('keyWorkspace') ?? null;
    const header = c.req.header(WORKSPACE_HEADER);
    const linked = header === undefined ? c.req.query('workspace') : undefined;
    const named =
      header ??
      linked ??
      // Pages, and a page's own API calls (no Authorization: its session), follow the switcher.
      (isApi && c.req.header('Authorization') ? undefined : getCookie(c, WORKSPACE_COOKIE));
    const selector: Selector | undefined =
      named === undefined ? undefined : { value: named, by: linked !== undefined ? 'id' : 'name' };
    let scope: RequestScope;
    try {
      scope = await resolveScope(platform, base, selector, keyWorkspace);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      if (!isApi && named !== undefined && c.req.header(WORKSPACE_HEADER) === undefined) {
        // A switcher cookie naming a workspace that has since gone: forget it, use the default.
        setCookie(c, WORKSPACE_COOKIE, '', { path: '/', maxAge: 0 });
        scope = await resolveScope(platform, base, undefined, keyWorkspace);
      } else return fail(c, 404, errorMessage(error));
    }
    await scopes.run(scope, () => next());
    // A page reached by a link that names its workspace keeps it in every link it gives.
    if (!isApi && selector?.by === 'id') c.res = await keepWorkspace(c.res, scope.workspace.id);
    return undefined;
  };
}

/** A workspace as a request names it: by the name people type, or by the id a link carries. */
interface Selector {
  value: string;
  by: 'name' | 'id';
}

async function resolveScope(
  platform: Platform | undefined,
  base: EngineDeps,
  selector: Selector | undefined,
  keyWorkspace: string | null,
): Promise<RequestScope> {
  const unknown = () =>
    new NotFoundError(`no workspace "${selector?.value ?? keyWorkspace}" (see: handoff workspaces)`);
  if (!platform) {
    if (selector !== undefined && selector.value !== DEFAULT_WORKSPACE) throw unknown();
    return { workspace: DEFAULT_ONLY, engine: base };
  }
  let workspace: Workspace | undefined;
  if (selector === undefined && keyWorkspace !== null) workspace = await platform.registry.byId(keyWorkspace);
  else if (selector?.by === 'id') workspace = await platform.registry.byId(selector.value);
  else workspace = await platform.resolve(selector?.value);
  if (!workspace || (keyWorkspace !== null && workspace.id !== keyWorkspace)) throw unknown();
  return { workspace, engine: platform.engineFor(workspace.id) };
}

/** Remembers the workspace picked in the switcher (a cookie for pages; the API uses the header). */
export function rememberWorkspace(c: Context, name: string, secure: boolean): void {
  setCookie(c, WORKSPACE_COOKIE, name, { path: '/', httpOnly: true, sameSite: 'Lax', secure });
}

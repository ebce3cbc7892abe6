/**
 * The workspace switcher (`POST /workspace`, a CSRF-protected form that remembers the
 * choice for the pages) and `GET /api/workspaces` (those the caller's key may see, each
 * with its waiting decisions).
 */
import type { Hono } from 'hono';
import { listPending } from '../runs/decision-repository.ts';
import { admitForm } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import { isHttps, safeNext } from './session.ts';
import type { WebDeps } from './web-deps.ts';
import { rememberWorkspace } from './workspace-scope.ts';

/** Registers the switcher (a page form). */
export function registerWorkspaceSwitch(app: Hono, web: WebDeps): void {
  app.post('/workspace', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const name = admitted.form.workspace ?? '';
    const workspace = web.platform ? await web.platform.registry.resolve(name).catch(() => null) : null;
    if (!workspace)
      return c.html(
        messagePage('Not found', `There is no workspace "${name}".`, { href: '/', text: 'Back' }),
        404,
      );
    rememberWorkspace(c, workspace.name, isHttps(c));
    return c.redirect(safeNext(admitted.form.next, '/'), 303);
  });
}

/** Registers `GET /api/workspaces` (after the bearer check, which notes a key's workspace). */
export function registerWorkspaceApi(app: Hono, web: WebDeps): void {
  app.get('/api/workspaces', async (c) => {
    const scope = c.get('keyWorkspace') ?? null;
    const platform = web.platform;
    const all = platform ? await platform.registry.list() : [web.workspace!];
    const visible = all.filter((w) => scope === null || w.id === scope);
    return c.json(
      await Promise.all(
        visible.map(async (w) => ({
          id: w.id,
          name: w.name,
          pending: (await listPending((platform?.engineFor(w.id) ?? web.engine).store)).length,
        })),
      ),
    );
  });
}

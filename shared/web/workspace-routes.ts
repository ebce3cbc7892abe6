/**
 * The workspace switcher (`POST /workspace`, a CSRF-protected form that remembers the
 * choice for the pages); `GET /api/workspaces` is in workflow-api.ts.
 */
import type { Hono } from 'hono';
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

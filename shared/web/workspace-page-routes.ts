/**
 * The Workspaces pages: create (and open), rename, delete after typing the name. An
 * administrator's pages: a member (a workspace-scoped key) gets 403 and nothing changes.
 */
import type { Context } from 'hono';
import type { RouteSink } from './lazy-routes.ts';
import { currentActor } from '../access/actor.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { deleteWorkspaceWithContents, workspaceContents } from '../workspaces/delete-workspace.ts';
import type { Platform } from '../workspaces/platform.ts';
import { admit, admitForm, type Admission } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import type { WorkspacesData } from './pages/workspaces.ts';

import { isHttps } from './session.ts';
import type { WebDeps } from './web-deps.ts';
import { rememberWorkspace } from './workspace-scope.ts';

/** The page templates load with the first page shown. */
const pages = () => import('./pages/workspaces.ts');

/** Registers `/workspaces` and its forms. */
export function registerWorkspacePages(app: RouteSink, web: WebDeps): void {
  /** The platform, or the response that says why these pages are closed. */
  const gate = (c: Context): { platform: Platform } | { response: Response | Promise<Response> } => {
    if (currentActor().kind === 'member')
      return { response: c.html(messagePage('Refused', 'Only an administrator manages workspaces.'), 403) };
    if (!web.platform)
      return {
        response: c.html(
          messagePage('Not found', 'This server has one workspace.', { href: '/', text: 'Back' }),
          404,
        ),
      };
    return { platform: web.platform };
  };

  const render = async (
    c: Context,
    admitted: Extract<Admission, { ok: true }>,
    platform: Platform,
    error: WorkspacesData['error'] = null,
  ) => {
    const all = await platform.registry.list();
    const rows = await Promise.all(
      all.map(async (w) => {
        const store = platform.engineFor(w.id).store;
        const [workflows, pending] = await Promise.all([store.list('workflows'), waitingCount(store)]);
        return {
          id: w.id,
          name: w.name,
          workflows: workflows.length,
          pending,
          current: w.id === web.workspace?.id,
        };
      }),
    );
    const [created, renamed, deleted] = [
      c.req.query('created'),
      c.req.query('renamed'),
      c.req.query('deleted'),
    ];
    const notice = renamed
      ? `Renamed to ${renamed}.`
      : deleted
        ? `Deleted the workspace ${deleted}.`
        : created
          ? `Created ${created}.`
          : null;
    const pending = rows.find((r) => r.current)?.pending ?? 0;
    return c.html(
      (await pages()).workspacesPage(admitted.visitor, { rows, pending, notice, error }),
      error ? 422 : 200,
    );
  };

  const byId = async (platform: Platform, id: string) => platform.registry.byId(id);

  app.get('/workspaces', async (c) => {
    const gated = gate(c);
    if ('response' in gated) return gated.response;
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    return render(c, admitted, gated.platform);
  });

  app.post('/workspaces', async (c) => {
    const gated = gate(c);
    if ('response' in gated) return gated.response;
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const typed = (admitted.form.name ?? '').trim();
    try {
      const added = await gated.platform.registry.add(typed);
      rememberWorkspace(c, added.name, isHttps(c));
      return c.redirect(`/?created=${encodeURIComponent(added.name)}`, 303);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return render(c, admitted, gated.platform, { form: 'create', message: error.message, typed });
    }
  });

  app.post('/workspaces/:id/rename', async (c) => {
    const gated = gate(c);
    if ('response' in gated) return gated.response;
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workspace = await byId(gated.platform, c.req.param('id') ?? '');
    if (!workspace)
      return c.html(
        messagePage('Not found', 'There is no such workspace.', { href: '/workspaces', text: 'Back' }),
        404,
      );
    const typed = (admitted.form.name ?? '').trim();
    try {
      const renamed = await gated.platform.registry.rename(workspace.name, typed);
      // The open workspace is remembered by name: follow the rename.
      if (workspace.id === web.workspace?.id) rememberWorkspace(c, renamed.name, isHttps(c));
      return c.redirect(`/workspaces?renamed=${encodeURIComponent(renamed.name)}`, 303);
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return render(c, admitted, gated.platform, {
        form: `rename-${workspace.id}`,
        message: error.message,
        typed,
      });
    }
  });

  const confirmPage = async (
    c: Context,
    platform: Platform,
    admitted: Extract<Admission, { ok: true }>,
    error: string | null,
  ) => {
    const workspace = await byId(platform, c.req.param('id') ?? '');
    if (!workspace)
      return c.html(
        messagePage('Not found', 'There is no such workspace.', { href: '/workspaces', text: 'Back' }),
        404,
      );
    if (workspace.id === 'default')
      return c.html(
        messagePage('Refused', 'The default workspace cannot be deleted (rename it instead).', {
          href: '/workspaces',
          text: 'Back',
        }),
        422,
      );
    const store = platform.engineFor(workspace.id).store;
    const [contents, pending] = await Promise.all([workspaceContents(store), waitingCount(web.engine.store)]);
    return c.html(
      (await pages()).deleteWorkspacePage(admitted.visitor, workspace, contents, pending, error),
      error ? 422 : 200,
    );
  };

  app.get('/workspaces/:id/delete', async (c) => {
    const gated = gate(c);
    if ('response' in gated) return gated.response;
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    return confirmPage(c, gated.platform, admitted, null);
  });

  app.post('/workspaces/:id/delete', async (c) => {
    const gated = gate(c);
    if ('response' in gated) return gated.response;
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workspace = await byId(gated.platform, c.req.param('id') ?? '');
    if (!workspace) return c.redirect('/workspaces', 303); // already gone
    if ((admitted.form.confirm ?? '').trim() !== workspace.name)
      return confirmPage(
        c,
        gated.platform,
        admitted,
        `Type the name ${workspace.name} exactly to delete it; nothing was deleted.`,
      );
    try {
      await deleteWorkspaceWithContents(
        gated.platform.registry,
        workspace.name,
        gated.platform.engineFor(workspace.id).store,
      );
    } catch (error) {
      if (error instanceof InvalidInputError || error instanceof NotFoundError)
        return c.html(messagePage('Refused', error.message, { href: '/workspaces', text: 'Back' }), 422);
      throw error;
    }
    return c.redirect(`/workspaces?deleted=${encodeURIComponent(workspace.name)}`, 303);
  });
}

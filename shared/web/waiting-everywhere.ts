/**
 * The decisions waiting in every workspace (or in the app's one, without workspaces): read
 * once per request, for the sidebar's badge and switcher and for Activity alike.
 */
import type { Decision } from '../records/runs.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { listPending } from '../runs/decision-repository.ts';
import type { WorkspaceLabel } from './pages/layout.ts';
import type { WebDeps } from './web-deps.ts';
import { currentScope } from './workspace-scope.ts';

/** One workspace's waiting decisions; `workspace` is null when the app has no workspaces. */
export interface WaitingIn {
  workspace: WorkspaceLabel | null;
  engine: EngineDeps;
  pending: Decision[];
}

/** Every workspace's waiting decisions, read at most once in a request. */
export function waitingEverywhere(web: WebDeps): Promise<WaitingIn[]> {
  const scope = currentScope();
  if (!scope) return readWaiting(web);
  scope.waiting ??= readWaiting(web);
  return scope.waiting;
}

async function readWaiting(web: WebDeps): Promise<WaitingIn[]> {
  const { platform } = web;
  const workspaces = platform
    ? (await platform.registry.list()).map((w) => ({
        workspace: { id: w.id, name: w.name },
        engine: platform.engineFor(w.id),
      }))
    : [{ workspace: null, engine: web.engine }];
  return Promise.all(workspaces.map(async (w) => ({ ...w, pending: await listPending(w.engine.store) })));
}

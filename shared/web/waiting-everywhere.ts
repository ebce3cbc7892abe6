/**
 * How many decisions wait in each workspace (or in the app's one, without workspaces): counted
 * once per request from each status index, never read, for the sidebar's switcher and
 * Activity's line about the other workspaces.
 */
import { waitingCount } from '../runs/decision-repository.ts';
import type { WorkspaceLabel } from './pages/layout.ts';
import type { WebDeps } from './web-deps.ts';
import { currentScope } from './workspace-scope.ts';

/** How many decisions wait in one workspace; `workspace` is null when the app has no workspaces. */
export interface WaitingIn {
  workspace: WorkspaceLabel | null;
  waiting: number;
}

/** Every workspace's count of waiting decisions, counted at most once in a request. */
export function waitingEverywhere(web: WebDeps): Promise<WaitingIn[]> {
  const scope = currentScope();
  if (!scope) return countWaiting(web);
  scope.waiting ??= countWaiting(web);
  return scope.waiting;
}

async function countWaiting(web: WebDeps): Promise<WaitingIn[]> {
  const { platform } = web;
  const workspaces = platform
    ? (await platform.registry.list()).map((w) => ({
        workspace: { id: w.id, name: w.name },
        store: platform.engineFor(w.id).store,
      }))
    : [{ workspace: null, store: web.engine.store }];
  return Promise.all(
    workspaces.map(async ({ workspace, store }) => ({
      workspace,
      waiting: await waitingCount(store),
    })),
  );
}

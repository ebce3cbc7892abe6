/**
 * The Workflows, Credentials and Workspaces pages, registered with lazyRoutes: their paths
 * here, their handlers in workflow-page-routes.ts, credential-routes.ts and
 * workspace-page-routes.ts, loaded with the first request to one of them.
 */
import type { Hono } from 'hono';
import { lazyRoutes } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

const WORKFLOW_ROUTES = [
  'GET /workflows',
  'GET /workflows/new',
  'POST /workflows',
  'GET /workflows/:id',
  'POST /workflows/:id',
  'POST /workflows/:id/yaml',
  'POST /workflows/:id/rename',
  'POST /workflows/:id/pause',
  'POST /workflows/:id/resume',
  'POST /workflows/:id/duplicate',
  'GET /workflows/:id/delete',
  'POST /workflows/:id/delete',
];
const CREDENTIAL_ROUTES = [
  'GET /credentials',
  'POST /credentials',
  'POST /credentials/:name/test',
  'GET /credentials/:name/delete',
  'POST /credentials/:name/delete',
];
const WORKSPACE_ROUTES = [
  'GET /workspaces',
  'POST /workspaces',
  'POST /workspaces/:id/rename',
  'GET /workspaces/:id/delete',
  'POST /workspaces/:id/delete',
];

/** Registers the three page groups; each module loads with its first request. */
export function registerLazyPages(
  app: Hono,
  web: WebDeps,
  onChange: WorkflowChangeListener,
  inLambda: boolean,
): void {
  lazyRoutes(app, WORKFLOW_ROUTES, async () => {
    const { registerWorkflowPages } = await import('./workflow-page-routes.ts');
    return (sink) => registerWorkflowPages(sink, web, onChange, inLambda);
  });
  lazyRoutes(app, CREDENTIAL_ROUTES, async () => {
    const { registerCredentialPages } = await import('./credential-routes.ts');
    return (sink) => registerCredentialPages(sink, web);
  });
  lazyRoutes(app, WORKSPACE_ROUTES, async () => {
    const { registerWorkspacePages } = await import('./workspace-page-routes.ts');
    return (sink) => registerWorkspacePages(sink, web);
  });
}

/**
 * The Workflows, Credentials and Workspaces pages, registered with lazyRoutes: their paths
 * here, their handlers in workflow-page-routes.ts, credential-routes.ts and
 * workspace-page-routes.ts, loaded with the first request to one of them.
 */
import type { Hono } from 'hono';
import { lazyRoutes } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';
import type { ChatTurnSender } from './chat-api-routes.ts';

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

const MANAGE_ROUTES = [
  'GET /memory',
  'POST /memory/proposals/:id/:choice{accept|dismiss}',
  'GET /memory/:id/delete',
  'POST /memory/:id/delete',
  'POST /memory/:id/restore',
  'POST /rules/:id/undo',
  'GET /settings',
  'POST /settings',
  'POST /settings/profile',
  'GET /login',
  'POST /login',
  'POST /logout',
];
const TALK_ROUTES = ['GET /talk'];
const CHAT_ROUTES = [
  'GET /chat',
  'GET /chat/:id',
  'POST /chat/new',
  'POST /chat',
  'POST /chat/:id',
  'POST /chat/:id/confirm',
  'POST /chat/:id/cancel',
  'POST /chat/:id/edit',
  'POST /chat/:id/credential',
  'POST /chat/:id/decide',
  'POST /chat/:id/rename',
  'POST /chat/:id/delete',
  'GET /chat/:id/events',
];

/** Memory, Settings and sign-in; each group's module loads with its first request. */
export function registerLazyManagePages(app: Hono, web: WebDeps): void {
  lazyRoutes(app, MANAGE_ROUTES, async () => {
    const { registerManageRoutes } = await import('./manage-routes.ts');
    return (sink) => registerManageRoutes(sink, web);
  });
}

/** Talk and Chat (`sendTurn`: where turns run on AWS). */
export function registerLazyConversationPages(app: Hono, web: WebDeps, sendTurn?: ChatTurnSender): void {
  lazyRoutes(app, TALK_ROUTES, async () => {
    const { registerTalkRoutes } = await import('./talk-routes.ts');
    return (sink) => registerTalkRoutes(sink, web);
  });
  lazyRoutes(app, CHAT_ROUTES, async () => {
    const { registerChatPageRoutes } = await import('./chat-page-routes.ts');
    return (sink) => registerChatPageRoutes(sink, web, sendTurn);
  });
}

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
    return (sink) => registerCredentialPages(sink, web, onChange);
  });
  lazyRoutes(app, WORKSPACE_ROUTES, async () => {
    const { registerWorkspacePages } = await import('./workspace-page-routes.ts');
    return (sink) => registerWorkspacePages(sink, web);
  });
}

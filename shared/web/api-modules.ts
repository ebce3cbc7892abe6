/**
 * Every `/api` route, by the module that defines and serves it (api-route.ts): each module
 * loads with the first request to one of its routes, so the routes' definitions, handlers and
 * schemas stay off a cold start. The routes are listed here as `lazyRoutes` needs them; a
 * module serving a route not listed, or not serving one listed, fails its first request, and
 * the OpenAPI tests fail for a listed route without a definition.
 */
import type { Hono } from 'hono';
import type { Speech } from '../speech/speech.ts';
import type { ChatTurnSender } from './chat-api-routes.ts';
import { lazyRoutes } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

export interface ApiModuleDeps {
  web: WebDeps;
  onWorkflowChange: WorkflowChangeListener;
  inLambda: boolean;
  speech: Speech;
  sendChatTurn: ChatTurnSender | undefined;
}

/** `GET /api/openapi.json`, open to anyone (registered before the API's bearer check). */
export function registerDocumentModule(app: Hono): void {
  lazyRoutes(app, ['GET /api/openapi.json'], async () => {
    const { registerDocumentRoute } = await import('./openapi.ts');
    return registerDocumentRoute;
  });
}

/** The other `/api` routes (registered after the bearer check and the workspace scope). */
export function registerApiModules(app: Hono, deps: ApiModuleDeps): void {
  const { web, onWorkflowChange: onChange, inLambda } = deps;
  lazyRoutes(
    app,
    [
      'GET /api/workflows',
      'PUT /api/workflows/:id',
      'DELETE /api/workflows/:id',
      'POST /api/workflows/:id/runs',
      'GET /api/runs/:id',
      'GET /api/workspaces',
    ],
    async () => {
      const { registerWorkflowApi } = await import('./workflow-api.ts');
      return (sink) => registerWorkflowApi(sink, { web, onChange, inLambda });
    },
  );
  lazyRoutes(
    app,
    [
      'GET /api/pending',
      'POST /api/decisions/:id',
      'POST /api/decisions',
      'POST /api/runs/:id/accept-suggestions',
      'POST /api/rules/:id/undo',
    ],
    async () => {
      const { registerAnswerRoutes } = await import('./answer-routes.ts');
      return (sink) => registerAnswerRoutes(sink, web);
    },
  );
  lazyRoutes(
    app,
    ['GET /api/runs', 'GET /api/decisions', 'GET /api/rules', 'GET /api/audit', 'GET /api/stats'],
    async () => {
      const { registerListRoutes } = await import('./list-routes.ts');
      return (sink) => registerListRoutes(sink, web);
    },
  );
  lazyRoutes(
    app,
    ['GET /api/credentials', 'PUT /api/credentials/:name', 'DELETE /api/credentials/:name'],
    async () => {
      const { registerCredentialApi } = await import('./credential-api.ts');
      return (sink) => registerCredentialApi(sink, web, onChange);
    },
  );
  lazyRoutes(
    app,
    ['GET /api/artifacts', 'GET /api/artifacts/:id', 'GET /api/artifacts/:id/download'],
    async () => {
      const { registerArtifactApi } = await import('./artifact-api.ts');
      return (sink) => registerArtifactApi(sink, web);
    },
  );
  lazyRoutes(
    app,
    ['GET /api/schedules', 'POST /api/schedules/:workflow/pause', 'POST /api/schedules/:workflow/resume'],
    async () => {
      const { registerScheduleApi } = await import('./schedule-api.ts');
      return (sink) => registerScheduleApi(sink, web, onChange);
    },
  );
  lazyRoutes(app, PLATFORM_ROUTES, async () => {
    const { registerPlatformRoutes } = await import('./platform-routes.ts');
    return (sink) => registerPlatformRoutes(sink, { web, onWorkflowChange: onChange, inLambda });
  });
  lazyRoutes(
    app,
    ['GET /api/chats', 'POST /api/chats', 'GET /api/chats/:id', 'POST /api/chats/:id/messages'],
    async () => {
      const { registerChatApi } = await import('./chat-api.ts');
      return (sink) => registerChatApi(sink, web, deps.sendChatTurn);
    },
  );
  lazyRoutes(
    app,
    [
      'POST /api/chats/:id/confirm',
      'POST /api/chats/:id/cancel',
      'POST /api/chats/:id/draft',
      'POST /api/chats/:id/credential',
    ],
    async () => {
      const { registerCardHandlers } = await import('./chat-card-api.ts');
      return (sink) => registerCardHandlers(sink, web);
    },
  );
  lazyRoutes(
    app,
    [
      'GET /api/speech/status',
      'POST /api/speech/transcribe',
      'POST /api/speech/speak',
      'POST /api/decisions/:id/voice',
    ],
    async () => {
      const { registerSpeechRoutes } = await import('./speech-api.ts');
      return (sink) => registerSpeechRoutes(sink, web, deps.speech);
    },
  );
}

const PLATFORM_ROUTES = [
  'GET /api/profile',
  'PUT /api/profile',
  'GET /api/skills',
  'GET /api/skills/:name',
  'PUT /api/skills/:name',
  'DELETE /api/skills/:name',
  'GET /api/agents',
  'GET /api/agents/:name',
  'PUT /api/agents/:name',
  'DELETE /api/agents/:name',
  'GET /api/workspace/export',
  'POST /api/workspace/apply',
];

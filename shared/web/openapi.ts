/**
 * The OpenAPI 3.1 document for `/api/*`, served at `/api/openapi.json`: its paths and schemas
 * are written from the routes' own definitions (openapi-routes.ts), this adds what the whole
 * API shares (how callers authenticate, the workspace header). test/aws/openapi.test.ts and
 * test/web/openapi-every-route.test.ts check every `/api` route the app serves is in it.
 */
import { defineRoute, serveRoute } from './api-route.ts';
import type { RouteSink } from './lazy-routes.ts';
import { definedRoutesDocument } from './openapi-routes.ts';

export const documentRoute = defineRoute({
  method: 'get',
  path: '/api/openapi.json',
  operationId: 'getOpenApi',
  summary: 'This document',
  open: true,
  responses: { 200: { description: 'The OpenAPI document.', schema: 'Document' } },
});

/** Serves the document, open to anyone (api-modules.ts loads this with its first request). */
export function registerDocumentRoute(app: RouteSink): void {
  serveRoute(app, documentRoute, async (c) => c.json(openApiDocument()));
}

/** The OpenAPI document for `/api/*`, served at `/api/openapi.json`. */
export function openApiDocument(): Record<string, unknown> {
  const defined = definedRoutesDocument([documentRoute]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Handoff API',
      version: '1',
      description:
        'Workflows, runs and the questions they ask. Locally: `Authorization: Bearer <key>` (HANDOFF_API_KEY, ' +
        'or a key made by `handoff keys add`, which may be limited to one workspace). ' +
        'On AWS, API Gateway authorises `/api/*` callers (IAM, SigV4) before the app sees them. ' +
        'Every route works in the workspace named by the `X-Handoff-Workspace` header (absent: `default`, ' +
        'or the workspace a scoped key is limited to); an unknown workspace, or one the key may not see, is 404.',
    },
    security: [{ bearerAuth: [] }, { awsSigV4: [] }],
    paths: defined.paths,
    components: {
      ...defined.components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'HANDOFF_API_KEY (local server).' },
        awsSigV4: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          description: 'AWS Signature Version 4 (service execute-api), checked by API Gateway (IAM) on AWS.',
        },
      },
    },
  };
}

/**
 * The OpenAPI document's paths and schemas, written by `@hono/zod-openapi` from the routes'
 * own definitions (api-route.ts): every `/api` route, its parameters, body and responses,
 * and the schemas they name. Loaded with the document, never on a cold start.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import { RESPONSES } from './api-responses.ts';
import { ErrorBody } from './api-responses-core.ts';
import type { ApiRoute, ErrorResponse } from './api-route.ts';
import { ANSWER_ROUTES } from './answer-routes.ts';
import { ARTIFACT_ROUTES } from './artifact-api.ts';
import { CHAT_ROUTES } from './chat-api.ts';
import { CARD_ROUTES } from './chat-card-api.ts';
import { CREDENTIAL_ROUTES } from './credential-api.ts';
import { LIST_ROUTES } from './list-routes.ts';
import { PLATFORM_ROUTES } from './platform-routes.ts';
import { SCHEDULE_ROUTES } from './schedule-api.ts';
import { SPEECH_ROUTES } from './speech-api.ts';
import { WORKFLOW_ROUTES } from './workflow-api.ts';

type Json = Record<string, unknown>;
type AnyRoute = ApiRoute<z.ZodType, z.ZodType, z.ZodObject>;

/** Every defined `/api` route but the document's own (openapi.ts). */
export const API_ROUTES: readonly AnyRoute[] = [
  ...WORKFLOW_ROUTES,
  ...ANSWER_ROUTES,
  ...LIST_ROUTES,
  ...CREDENTIAL_ROUTES,
  ...ARTIFACT_ROUTES,
  ...SCHEDULE_ROUTES,
  ...PLATFORM_ROUTES,
  ...CHAT_ROUTES,
  ...CARD_ROUTES,
  ...SPEECH_ROUTES,
];

/** What each error response of the document's components says (its body is always `Error`). */
const ERRORS: Record<ErrorResponse, string> = {
  BadRequest: 'The request body is not what this route takes.',
  Unauthorized:
    'Missing or wrong bearer token (local server; on AWS, API Gateway refuses unsigned calls itself).',
  NotFound: 'No such workflow, run or decision, or no such workspace for this key.',
  Conflict: 'The decision was already answered or expired, or someone else answered it just now.',
  TooLarge: 'The request body is too large.',
  Unprocessable: 'The input is well-formed but not acceptable (an invalid workflow, an action not offered).',
  ServerError: 'Something failed on the server; the log has the details.',
};

/** The defined routes' paths and components (schemas and error responses), `more` first. */
export function definedRoutesDocument(more: readonly AnyRoute[] = []): {
  paths: Record<string, Json>;
  components: Record<string, Json>;
} {
  const api = new OpenAPIHono();
  api.openAPIRegistry.register('Error', ErrorBody);
  for (const [name, description] of Object.entries(ERRORS))
    api.openAPIRegistry.registerComponent('responses', name, {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  for (const route of [...more, ...API_ROUTES]) api.openAPIRegistry.registerPath(openApiRoute(route));
  const doc = api.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Handoff API', version: '1' } });
  return {
    paths: (doc.paths ?? {}) as Record<string, Json>,
    components: (doc.components ?? {}) as Record<string, Json>,
  };
}

/** The route as `@hono/zod-openapi` takes it. */
function openApiRoute(route: AnyRoute): RouteConfig {
  const content = route.body
    ? { 'application/json': { schema: route.body.schema } }
    : route.content
      ? Object.fromEntries(Object.entries(route.content).map(([media, schema]) => [media, { schema }]))
      : undefined;
  const request = {
    ...(route.params ? { params: route.params } : {}),
    ...(route.query && 'shape' in route.query ? { query: route.query as z.ZodObject } : {}),
    ...(content ? { body: { required: !route.body?.optional, content } } : {}),
  };
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.open ? { security: [] } : {}),
    ...(Object.keys(request).length > 0 ? { request } : {}),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        typeof response === 'string'
          ? { $ref: `#/components/responses/${response}` }
          : {
              description: response.description,
              ...(response.schema
                ? {
                    content: {
                      [response.media ?? 'application/json']: { schema: RESPONSES[response.schema] },
                    },
                  }
                : {}),
              ...(response.headers
                ? {
                    headers: Object.fromEntries(
                      Object.entries(response.headers).map(([name, description]) => [
                        name,
                        { description, schema: { type: 'string' } },
                      ]),
                    ),
                  }
                : {}),
            },
      ]),
    ),
  };
}

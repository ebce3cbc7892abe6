/**
 * The part of the OpenAPI document written by `@hono/zod-openapi` from the routes' own
 * definitions (api-route.ts): the list and answer routes, their parameters, bodies and
 * responses, and the schemas they name. Loaded with the document, never on a cold start.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import { RESPONSES } from './api-responses.ts';
import type { ApiRoute } from './api-route.ts';
import { ANSWER_ROUTES } from './answer-routes.ts';
import { LIST_ROUTES } from './list-routes.ts';

type Json = Record<string, unknown>;

/** The defined routes' paths and component schemas. */
export function definedRoutesDocument(): { paths: Record<string, Json>; schemas: Record<string, Json> } {
  const api = new OpenAPIHono();
  for (const route of [...LIST_ROUTES, ...ANSWER_ROUTES])
    api.openAPIRegistry.registerPath(openApiRoute(route));
  const doc = api.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Handoff API', version: '1' } });
  return {
    paths: (doc.paths ?? {}) as Record<string, Json>,
    schemas: (doc.components?.schemas ?? {}) as Record<string, Json>,
  };
}

/** The route as `@hono/zod-openapi` takes it. */
function openApiRoute(route: ApiRoute<z.ZodType, z.ZodType, z.ZodObject>): RouteConfig {
  const request = {
    ...(route.params ? { params: route.params } : {}),
    ...(route.query && 'shape' in route.query ? { query: route.query as z.ZodObject } : {}),
    ...(route.body
      ? { body: { required: true, content: { 'application/json': { schema: route.body.schema } } } }
      : {}),
  };
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(Object.keys(request).length > 0 ? { request } : {}),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        typeof response === 'string'
          ? { $ref: `#/components/responses/${response}` }
          : {
              description: response.description,
              content: { 'application/json': { schema: RESPONSES[response.schema] } },
            },
      ]),
    ),
  };
}

/**
 * Artifacts over the API (bearer key), one definition per route (api-route.ts):
 * `GET /api/artifacts[?run=ID][&limit=N&cursor=C]` (a bare array, newest first; where the next
 * page starts in `X-Next-Cursor`), `/api/artifacts/:id`, `/api/artifacts/:id/download`.
 * Loaded with the first request to one of them (api-modules.ts).
 */
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { artifactSummary, getArtifact } from '../artifacts/artifacts.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import { Paging } from './list-queries.ts';
import { artifactsFor, downloadResponse } from './artifact-routes.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

const artifactId = pathParam('id', 'The artifact id.');

export const listArtifactsRoute = defineRoute({
  method: 'get',
  path: '/api/artifacts',
  operationId: 'listArtifacts',
  summary: "What runs produced (the workspace's, or one run's), newest first",
  query: z.object({
    run: z.string().optional().meta({ description: 'Only this run.' }),
    ...Paging,
    cursor: Paging.cursor.meta({ description: "The previous page's `X-Next-Cursor`." }),
  }),
  responses: {
    200: {
      description: 'A page of the artifacts, without their content.',
      schema: 'ArtifactSummaries',
      headers: {
        'X-Next-Cursor': 'Where the next page starts (pass it as `cursor`); absent on the last page.',
      },
    },
    400: 'BadRequest',
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const getArtifactRoute = defineRoute({
  method: 'get',
  path: '/api/artifacts/{id}',
  operationId: 'getArtifact',
  summary: 'One artifact, with its content',
  params: artifactId,
  responses: {
    200: { description: 'The artifact.', schema: 'Artifact' },
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const downloadArtifactRoute = defineRoute({
  method: 'get',
  path: '/api/artifacts/{id}/download',
  operationId: 'downloadArtifact',
  summary: "The artifact's content as a file (Content-Disposition: attachment, its own content type)",
  params: artifactId,
  responses: {
    200: {
      description: 'The content, as text/plain, text/markdown, message/rfc822 or application/json.',
      schema: 'FileBody',
      media: 'text/plain',
    },
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const ARTIFACT_ROUTES = [listArtifactsRoute, getArtifactRoute, downloadArtifactRoute];

/** Registers the routes' handlers; errors become `{"error": ...}` through the app's handler. */
export function registerArtifactApi(app: RouteSink, web: WebDeps): void {
  serveRoute(app, listArtifactsRoute, async (c, { query: { run, limit, cursor } }) => {
    if (run === '') throw new HTTPException(400, { message: '?run= needs a run id (see `handoff runs`)' });
    const page = await artifactsFor(web.engine.store, { run, limit, cursor });
    // The list stays a bare array (its contract); where the next page starts is a header.
    if (page.next_cursor !== null) c.header('X-Next-Cursor', page.next_cursor);
    return c.json(page.items.map(artifactSummary));
  });

  serveRoute(app, getArtifactRoute, async (c, { params: { id } }) => {
    const { version: _version, ...artifact } = await getArtifact(web.engine.store, id);
    return c.json(artifact);
  });

  serveRoute(app, downloadArtifactRoute, async (c, { params: { id } }) =>
    downloadResponse(c, await getArtifact(web.engine.store, id)),
  );
}

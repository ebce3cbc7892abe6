/**
 * Credentials over the API (bearer key), write-only like the Credentials page, one definition
 * per route (api-route.ts): `GET /api/credentials` lists names and when each was set, never
 * values (as `handoff credentials --json`); `PUT /api/credentials/:name` with `{"value"}` sets
 * or replaces one and resumes the workflows paused only until it was set; `DELETE
 * /api/credentials/:name` forgets one. Loaded with the first request to one of them.
 */
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { Secret } from '../credentials/secret.ts';
import { pauseWhenDeleted, resumeWhenSet } from '../schedules/resume-when-set.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

const SHAPE = '{"value": "the secret"}';
const CredentialBody = z.object({ value: z.string().meta({ writeOnly: true }) });
const credentialName = pathParam('name', 'The credential name, UPPER_SNAKE_CASE (MAIL_PASSWORD).');

export const listCredentialsRoute = defineRoute({
  method: 'get',
  path: '/api/credentials',
  operationId: 'listCredentials',
  summary: "The workspace's credential names (never their values)",
  responses: {
    200: { description: 'Credentials, by name.', schema: 'Credentials' },
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const setCredentialRoute = defineRoute({
  method: 'put',
  path: '/api/credentials/{name}',
  operationId: 'setCredential',
  summary: 'Set or replace a credential (write-only), resuming what waited for it',
  description:
    'The value is sealed and never returned. Workflows paused only until their credentials were set, and that now have all they need, are resumed (on AWS their schedules are enabled again); those still missing some stay paused.',
  params: credentialName,
  body: { schema: CredentialBody, shape: SHAPE, invalid: `body must be JSON like ${SHAPE}` },
  responses: {
    200: { description: 'Set; what it resumed and what still waits.', schema: 'CredentialSet' },
    400: 'BadRequest',
    401: 'Unauthorized',
    422: 'Unprocessable',
  },
});

export const deleteCredentialRoute = defineRoute({
  method: 'delete',
  path: '/api/credentials/{name}',
  operationId: 'deleteCredential',
  summary: 'Forget a credential, pausing what needs it',
  description:
    'The workflows that need it are paused until it is set again (on AWS their schedules are disabled); a workflow the person paused stays as it was.',
  params: credentialName,
  responses: {
    200: { description: 'Deleted.', schema: 'CredentialDeleted' },
    401: 'Unauthorized',
    404: 'NotFound',
    422: 'Unprocessable',
  },
});

export const CREDENTIAL_ROUTES = [listCredentialsRoute, setCredentialRoute, deleteCredentialRoute];

/** Registers the routes' handlers (the app's body ceiling bounds every body). */
export function registerCredentialApi(app: RouteSink, web: WebDeps, onChange: WorkflowChangeListener): void {
  serveRoute(app, listCredentialsRoute, async (c) => c.json(await web.engine.credentials.list()));

  serveRoute(app, setCredentialRoute, async (c, { params: { name }, body }) => {
    if (body.value.trim() === '')
      throw new HTTPException(422, { message: `the value of ${name} is empty: send the secret itself` });
    const engine = web.engine;
    const info = await engine.credentials.set(name, new Secret(body.value)); // 422 for a bad name
    const changed = await resumeWhenSet({
      store: engine.store,
      credentials: engine.credentials,
      workspace: engine.workspace,
      onWorkflowChange: onChange,
    });
    return c.json({ ...info, ...changed });
  });

  serveRoute(app, deleteCredentialRoute, async (c, { params: { name } }) => {
    await web.engine.credentials.delete(name); // 404 when none is set, 422 for a bad name
    const engine = web.engine;
    const paused = await pauseWhenDeleted(
      { store: engine.store, workspace: engine.workspace, onWorkflowChange: onChange },
      name,
    );
    return c.json({ deleted: name, paused });
  });
}

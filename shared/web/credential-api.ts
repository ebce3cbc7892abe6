/**
 * Credentials over the API (bearer key; registered after the API guard), write-only like the
 * Credentials page: `PUT /api/credentials/:name` with `{"value"}` sets or replaces one and
 * resumes the workflows paused only until it was set; `DELETE /api/credentials/:name` forgets
 * one. No answer ever carries a value.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { Secret } from '../credentials/secret.ts';
import { resumeWhenSet } from '../schedules/resume-when-set.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

const SHAPE = '{"value": "the secret"}';
const CredentialBody = z.object({ value: z.string() });

/** Registers `PUT` and `DELETE /api/credentials/:name`; `limit` is the app's body limit. */
export function registerCredentialApi(
  app: Hono,
  web: WebDeps,
  limit: MiddlewareHandler,
  onChange: WorkflowChangeListener,
): void {
  app.put('/api/credentials/:name', limit, async (c) => {
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      throw new HTTPException(400, { message: `body must be JSON like ${SHAPE}` });
    }
    const body = CredentialBody.safeParse(raw);
    if (!body.success) throw new HTTPException(400, { message: `body must be JSON like ${SHAPE}` });
    const name = c.req.param('name');
    if (body.data.value.trim() === '')
      throw new HTTPException(422, { message: `the value of ${name} is empty: send the secret itself` });
    const engine = web.engine;
    const info = await engine.credentials.set(name, new Secret(body.data.value)); // 422 for a bad name
    const changed = await resumeWhenSet({
      store: engine.store,
      credentials: engine.credentials,
      workspace: engine.workspace,
      onWorkflowChange: onChange,
    });
    return c.json({ ...info, ...changed });
  });

  app.delete('/api/credentials/:name', async (c) => {
    const name = c.req.param('name');
    await web.engine.credentials.delete(name); // 404 when none is set, 422 for a bad name
    return c.json({ deleted: name });
  });
}

/**
 * `PUT /api/workflows/:id` and `DELETE /api/workflows/:id`: add, replace or remove a
 * workflow over the API. Every change is announced to `onChange` (on AWS: a
 * `handoff.workflow` event, which keeps the workflow's EventBridge schedule in step).
 * Errors are thrown and become `{"error": ...}` through the app's error handler.
 */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { InvalidInputError } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { lambdaSourceProblem } from '../sources/source-types.ts';
import { MAX_WORKFLOW_BYTES, tooLargeMessage } from '../workflows/limits.ts';
import { deleteWorkflow, saveWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';

export type WorkflowChange = 'saved' | 'removed';
/** Told after a workflow was saved or removed; a failure fails the request (PUT/DELETE may be retried). */
export type WorkflowChangeListener = (
  workflowId: string,
  change: WorkflowChange,
  workspace: string,
) => Promise<void>;

export interface WorkflowRouteDeps {
  /** `web.engine`: the request's workspace. */
  web: { readonly engine: EngineDeps };
  onChange: WorkflowChangeListener;
  /** Served by a Lambda function: a workflow whose source needs local folders is refused (400). */
  inLambda?: boolean;
}

/** A workflow as `GET /api/workflows` lists it. */
export interface WorkflowSummary {
  id: string;
  name: string;
  trigger: Workflow['trigger'];
}

const YAML_TYPES = /^(application|text)\/(x-)?yaml\b/i;

export function registerWorkflowRoutes(app: Hono, deps: WorkflowRouteDeps): void {
  const limit = bodyLimit({
    maxSize: MAX_WORKFLOW_BYTES,
    onError: (c) => {
      throw new HTTPException(413, { message: tooLargeMessage(bodyName(c.req.header('Content-Type'))) });
    },
  });

  app.put('/api/workflows/:id', limit, async (c) => {
    const id = c.req.param('id');
    const text = await c.req.text();
    // The YAML parser loads with the first workflow sent, not with every cold start.
    const { parseWorkflow } = await import('../workflows/load.ts');
    const workflow = parseWorkflow(text, bodyName(c.req.header('Content-Type')));
    if (workflow.id !== id)
      throw new InvalidInputError(`body: id "${workflow.id}" does not match the path's workflow id "${id}"`);
    const problem = deps.inLambda ? lambdaSourceProblem(workflow.source.type) : null;
    if (problem) throw new HTTPException(400, { message: problem });
    const { engine } = deps.web;
    const existed = (await engine.store.get('workflows', id)) !== undefined;
    await saveWorkflow(engine.store, workflow);
    await deps.onChange(id, 'saved', engine.workspace);
    const summary: WorkflowSummary = { id: workflow.id, name: workflow.name, trigger: workflow.trigger };
    return c.json(summary, existed ? 200 : 201);
  });

  app.delete('/api/workflows/:id', async (c) => {
    const id = c.req.param('id');
    const { engine } = deps.web;
    await deleteWorkflow(engine.store, id); // NotFoundError: 404
    await deps.onChange(id, 'removed', engine.workspace);
    return c.body(null, 204);
  });
}

/** The name parseWorkflow reports errors against; its extension picks the format (none: sniffed). */
function bodyName(contentType: string | undefined): string {
  if (contentType && /^application\/(.+\+)?json\b/i.test(contentType)) return 'body.json';
  if (contentType && YAML_TYPES.test(contentType)) return 'body.yaml';
  return 'body';
}

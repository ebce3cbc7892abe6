/**
 * Workflows and runs over the API, one definition per route (api-route.ts): list, add or
 * replace (`PUT`, JSON or YAML), remove, start a run, see where a run is; and the workspaces
 * the key may see. Every change is announced to `onChange` (on AWS: a `handoff.workflow`
 * event, which keeps the workflow's EventBridge schedule in step). Loaded with the first
 * request to one of them (api-modules.ts).
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { InvalidInputError } from '../errors/index.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { getRun } from '../runs/run-repository.ts';
import { createRunFor } from '../runs/start-run.ts';
import { summarise } from '../runs/views.ts';
import { lambdaSourceProblem } from '../sources/source-types.ts';
import { MAX_WORKFLOW_BYTES, tooLargeMessage } from '../workflows/limits.ts';
import { deleteWorkflow, listWorkflows, saveWorkflow } from '../workflows/repository.ts';
import { WorkflowSchema } from '../workflows/schema.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener, WorkflowSummary } from './workflow-routes.ts';

const workflowId = pathParam('id', 'The workflow id (a slug).');
const Workflow = WorkflowSchema.meta({
  id: 'Workflow',
  description: 'A workflow definition (the same as a workflow file), as JSON or YAML.',
});

export const listWorkflowsRoute = defineRoute({
  method: 'get',
  path: '/api/workflows',
  operationId: 'listWorkflows',
  summary: 'List workflows',
  responses: {
    200: { description: 'Every workflow, by id.', schema: 'WorkflowSummaries' },
    401: 'Unauthorized',
  },
});

export const putWorkflowRoute = defineRoute({
  method: 'put',
  path: '/api/workflows/{id}',
  operationId: 'putWorkflow',
  summary: 'Add or replace a workflow',
  description:
    'The body is validated like a workflow file; its `id` must match the path. Schedules follow. ' +
    'On AWS, a source that needs local folders (maildir) is refused with 400.',
  params: workflowId,
  content: { 'application/json': Workflow, 'application/yaml': Workflow },
  responses: {
    200: { description: 'Replaced.', schema: 'WorkflowSummary' },
    201: { description: 'Added.', schema: 'WorkflowSummary' },
    400: 'BadRequest',
    401: 'Unauthorized',
    413: 'TooLarge',
    422: 'Unprocessable',
    500: 'ServerError',
  },
});

export const deleteWorkflowRoute = defineRoute({
  method: 'delete',
  path: '/api/workflows/{id}',
  operationId: 'deleteWorkflow',
  summary: 'Remove a workflow (and its schedule)',
  params: workflowId,
  responses: { 204: { description: 'Removed.' }, 401: 'Unauthorized', 404: 'NotFound', 500: 'ServerError' },
});

export const startRunRoute = defineRoute({
  method: 'post',
  path: '/api/workflows/{id}/runs',
  operationId: 'startRun',
  summary: 'Start a run now',
  description: 'Answers at once; poll `/api/runs/{run_id}` for where it got to.',
  params: pathParam('id', 'The workflow to run.'),
  responses: {
    202: { description: 'The run was created and is being worked.', schema: 'RunStarted' },
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const getRunRoute = defineRoute({
  method: 'get',
  path: '/api/runs/{id}',
  operationId: 'getRun',
  summary: 'Where a run is',
  params: pathParam('id', 'The run id.'),
  responses: { 200: { description: 'The run.', schema: 'RunSummary' }, 401: 'Unauthorized', 404: 'NotFound' },
});

export const workspacesRoute = defineRoute({
  method: 'get',
  path: '/api/workspaces',
  operationId: 'listWorkspaces',
  summary: 'The workspaces the key may see, each with its waiting decisions',
  responses: { 200: { description: 'Workspaces.', schema: 'Workspaces' }, 401: 'Unauthorized' },
});

export const WORKFLOW_ROUTES = [
  listWorkflowsRoute,
  putWorkflowRoute,
  deleteWorkflowRoute,
  startRunRoute,
  getRunRoute,
  workspacesRoute,
];

export interface WorkflowApiDeps {
  web: WebDeps;
  onChange: WorkflowChangeListener;
  /** Served by a Lambda function: a workflow whose source needs local folders is refused (400). */
  inLambda: boolean;
}

const YAML_TYPES = /^(application|text)\/(x-)?yaml\b/i;

/** The name parseWorkflow reports errors against; its extension picks the format (none: sniffed). */
function bodyName(contentType: string | undefined): string {
  if (contentType && /^application\/(.+\+)?json\b/i.test(contentType)) return 'body.json';
  if (contentType && YAML_TYPES.test(contentType)) return 'body.yaml';
  return 'body';
}

/** Registers the routes' handlers; errors become `{"error": ...}` through the app's handler. */
export function registerWorkflowApi(app: RouteSink, { web, onChange, inLambda }: WorkflowApiDeps): void {
  serveRoute(app, listWorkflowsRoute, async (c) =>
    c.json(
      (await listWorkflows(web.engine.store)).map((w) => ({ id: w.id, name: w.name, trigger: w.trigger })),
    ),
  );

  const workflowLimit = bodyLimit({
    maxSize: MAX_WORKFLOW_BYTES,
    onError: (c: Context) => {
      throw new HTTPException(413, { message: tooLargeMessage(bodyName(c.req.header('Content-Type'))) });
    },
  });
  serveRoute(
    app,
    putWorkflowRoute,
    async (c, { params: { id } }) => {
      const text = await c.req.text();
      // The YAML parser loads with the first workflow sent, not with every cold start.
      const { parseWorkflow } = await import('../workflows/load.ts');
      const workflow = parseWorkflow(text, bodyName(c.req.header('Content-Type')));
      if (workflow.id !== id)
        throw new InvalidInputError(
          `body: id "${workflow.id}" does not match the path's workflow id "${id}"`,
        );
      const problem = inLambda ? lambdaSourceProblem(workflow.source.type) : null;
      if (problem) throw new HTTPException(400, { message: problem });
      const { engine } = web;
      const existed = (await engine.store.get('workflows', id)) !== undefined;
      await saveWorkflow(engine.store, workflow);
      await onChange(id, 'saved', engine.workspace);
      const summary: WorkflowSummary = { id: workflow.id, name: workflow.name, trigger: workflow.trigger };
      return c.json(summary, existed ? 200 : 201);
    },
    workflowLimit,
  );

  serveRoute(app, deleteWorkflowRoute, async (c, { params: { id } }) => {
    const { engine } = web;
    await deleteWorkflow(engine.store, id); // NotFoundError: 404
    await onChange(id, 'removed', engine.workspace);
    return c.body(null, 204);
  });

  serveRoute(app, startRunRoute, async (c, { params: { id } }) => {
    const run = await createRunFor(web.engine, id, { kind: 'manual', detail: null });
    web.runner.launch(run, web.engine);
    return c.json({ run_id: run.id }, 202);
  });

  serveRoute(app, getRunRoute, async (c, { params: { id } }) =>
    c.json(summarise(await getRun(web.engine.store, id))),
  );

  serveRoute(app, workspacesRoute, async (c) => {
    const scope = c.get('keyWorkspace') ?? null;
    const platform = web.platform;
    const all = platform ? await platform.registry.list() : [web.workspace!];
    const visible = all.filter((w) => scope === null || w.id === scope);
    return c.json(
      await Promise.all(
        visible.map(async (w) => ({
          id: w.id,
          name: w.name,
          pending: await waitingCount((platform?.engineFor(w.id) ?? web.engine).store),
        })),
      ),
    );
  });
}

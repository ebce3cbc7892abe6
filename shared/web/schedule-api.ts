/**
 * Schedules over the API (bearer key), one definition per route (api-route.ts):
 * `GET /api/schedules`, `POST /api/schedules/:workflow/pause|resume`; errors become
 * `{"error": ...}` (404 for an unknown or unscheduled workflow, 422 for a resume while a
 * credential it needs is not set). Loaded with the first request to one of them.
 */
import { listSchedules } from '../schedules/schedules.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import { change, OPS } from './schedule-routes.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

export const listSchedulesRoute = defineRoute({
  method: 'get',
  path: '/api/schedules',
  operationId: 'listSchedules',
  summary: "Every scheduled workflow, its state and next firings in the profile's time zone",
  responses: { 200: { description: 'By workflow id.', schema: 'Schedules' }, 401: 'Unauthorized' },
});

const scheduleChangeRoute = (op: (typeof OPS)[number]) =>
  defineRoute({
    method: 'post',
    path: `/api/schedules/{workflow}/${op}`,
    operationId: `${op}Schedule`,
    summary: op === 'pause' ? 'Pause a schedule (the workflow is not edited)' : 'Resume a paused schedule',
    description:
      'Saying the same twice changes nothing. On AWS the EventBridge schedule follows (DISABLED/ENABLED).',
    params: pathParam('workflow', 'The workflow id.'),
    responses: {
      200: { description: 'The schedule as it now is.', schema: 'Schedule' },
      401: 'Unauthorized',
      404: 'NotFound',
      422: 'Unprocessable',
    },
  });

const CHANGE_ROUTES = OPS.map((op) => ({ op, route: scheduleChangeRoute(op) }));

export const SCHEDULE_ROUTES = [listSchedulesRoute, ...CHANGE_ROUTES.map((r) => r.route)];

/** Registers the routes' handlers. */
export function registerScheduleApi(app: RouteSink, web: WebDeps, onChange: WorkflowChangeListener): void {
  serveRoute(app, listSchedulesRoute, async (c) => c.json(await listSchedules(web.engine.store)));
  for (const { op, route } of CHANGE_ROUTES)
    serveRoute(app, route, async (c, { params }) => c.json(await change(web, onChange, params.workflow, op)));
}

/**
 * Schedules over HTTP: the Schedules page with its Pause / Resume forms (session + CSRF);
 * the API's routes (`/api/schedules*`) are in schedule-api.ts. A change is announced like a saved workflow (on AWS:
 * a `handoff.workflow` event, whose sync sets the EventBridge schedule DISABLED or ENABLED).
 */
import type { Hono } from 'hono';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { readProfile } from '../profile/profile.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { listSchedules, setPaused, type ScheduleView } from '../schedules/schedules.ts';
import { admit, admitForm } from './guard.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { messagePage } from './pages/layout.ts';
import type { WebDeps } from './web-deps.ts';
import type { WorkflowChangeListener } from './workflow-routes.ts';

export const OPS = ['pause', 'resume'] as const;

/** Pauses or resumes, then tells the listener (AWS: the schedule follows the store). */
export async function change(
  web: WebDeps,
  onChange: WorkflowChangeListener,
  workflowId: string,
  op: (typeof OPS)[number],
): Promise<ScheduleView> {
  const view = await setPaused(
    web.engine.store,
    workflowId,
    op === 'pause',
    new Date(),
    web.engine.credentials,
  );
  await onChange(workflowId, 'saved', web.engine.workspace);
  return view;
}

/** Registers the Schedules page and its forms. */
export function registerSchedulePages(app: Hono, web: WebDeps, onChange: WorkflowChangeListener): void {
  app.get('/schedules', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const store = web.engine.store;
    const [schedules, profile, pending, workflows] = await Promise.all([
      listSchedules(store),
      readProfile(store),
      waitingCount(store),
      listWorkflows(store),
    ]);
    const scheduled = workflows.filter((w) => w.trigger.schedule !== undefined);
    // Readiness and last results load with the first Schedules page (not with every cold start).
    const { workflowStatuses } = await import('./workflow-status.ts');
    const statuses = new Map(
      (await workflowStatuses(web.engine, scheduled)).map((s) => [s.workflow.id, s] as const),
    );
    const [paused, resumed] = [c.req.query('paused'), c.req.query('resumed')];
    const notice = paused
      ? `Paused the schedule of ${paused}.`
      : resumed
        ? `Resumed the schedule of ${resumed}.`
        : null;
    // The page's markup loads with the first Schedules page (the API's cold start never reads it).
    const { schedulesPage } = await import('./pages/schedules.ts');
    return c.html(
      schedulesPage(admitted.visitor, {
        schedules,
        statuses,
        timeZone: profile.time_zone,
        pending,
        notice,
      }),
    );
  });

  for (const op of OPS)
    app.post(`/schedules/:workflow/${op}`, async (c) => {
      const admitted = await admitForm(c, web);
      if (!admitted.ok) return admitted.response;
      const workflowId = c.req.param('workflow');
      try {
        await change(web, onChange, workflowId, op);
      } catch (error) {
        if (error instanceof InvalidInputError)
          return c.html(
            messagePage('Still paused', error.message, { href: '/schedules', text: 'Back to the schedules' }),
            422,
          );
        if (!(error instanceof NotFoundError)) throw error;
        return c.html(
          messagePage('Not found', error.message, { href: '/schedules', text: 'Back to the schedules' }),
          404,
        );
      }
      return c.redirect(
        `/schedules?${op === 'pause' ? 'paused' : 'resumed'}=${encodeURIComponent(workflowId)}`,
        303,
      );
    });
}

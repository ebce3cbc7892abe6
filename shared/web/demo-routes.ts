/** `POST /demo/more`: the demo Overview's "Deliver more demo mail" (a fresh day in the demo inbox). */
import { answeredByPerson } from '../runs/answered.ts';
import { demoWorkflowOf } from '../sources/maildir/demo-place.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { admitForm } from './guard.ts';
import { messagePage } from './pages/layout.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

/** Registers the demo's delivery form. */
export function registerDemoRoutes(app: RouteSink, web: WebDeps): void {
  app.post('/demo/more', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const demo = demoWorkflowOf(await listWorkflows(web.engine.store), web.env.HANDOFF_STATE_DIR);
    if (!demo || demo.source.type !== 'maildir')
      return c.html(
        messagePage('Not found', 'This workspace has no demo inbox.', { href: '/', text: 'Back' }),
        404,
      );
    // Mail writing (and its parser) loads with the first delivery, not with every cold start.
    const { deliverMoreDemoMail } = await import('../sources/maildir/demo-more.ts');
    const delivery = await deliverMoreDemoMail(demo.source.path, await answeredByPerson(web.engine.store));
    const query = new URLSearchParams({
      delivered: String(delivery.delivered),
      answered: String(delivery.fromAnswered),
    });
    return c.redirect(`/?${query.toString()}`, 303);
  });
}

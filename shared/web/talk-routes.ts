/** `GET /talk`: the Talk page (its calls go to the speech and decision API with the page's CSRF token). */
import { feed, workspaceChannel } from '../events/feed.ts';
import { firstWaiting, waitingCount } from '../runs/decision-repository.ts';
import { getRun, latestRuns } from '../runs/run-repository.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { admit } from './guard.ts';
import { talkPage } from './pages/talk.ts';
import type { WebDeps } from './web-deps.ts';
import type { RouteSink } from './lazy-routes.ts';

/** Questions Talk holds at a time: it walks them one by one; the next visit brings the next ones. */
const TALK_PAGE = 50;

/** Registers the Talk page. */
export function registerTalkRoutes(app: RouteSink, web: WebDeps): void {
  app.get('/talk', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const store = web.engine.store;
    const [pending, waiting, workflows] = await Promise.all([
      firstWaiting(store, TALK_PAGE),
      waitingCount(store),
      listWorkflows(store),
    ]);
    const irreversible = new Map(
      workflows.map((w) => [w.id, new Set(w.actions.filter((a) => a.irreversible).map((a) => a.name))]),
    );
    const runId = pending[0]?.run_id;
    const run = runId
      ? await getRun(store, runId).catch(() => null)
      : ((await latestRuns(store, 1)).runs[0] ?? null);
    const events = run ? feed.history(workspaceChannel(web.engine.workspace, run.id)) : [];
    const data = {
      pending,
      waiting,
      irreversible,
      run,
      events,
      provider: web.env.HANDOFF_SPEECH_PROVIDER,
      live: web.liveFeed,
    };
    return c.html(talkPage(admitted.visitor, data));
  });
}

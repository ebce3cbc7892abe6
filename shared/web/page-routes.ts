/**
 * The pages a person reads: Overview, Runs and the run inspector (with
 * its session-authenticated live stream), "Run now" and "Check source". Activity is
 * activity-routes.ts.
 */
import type { Context, Hono } from 'hono';
import { auditOfRun } from '../audit/audit.ts';
import { listArtifacts } from '../artifacts/artifacts.ts';
import { NotFoundError } from '../errors/index.ts';
import { feed, workspaceChannel } from '../events/feed.ts';
import { readSession } from '../recorder/store-sink.ts';
import { decisionsOfRun, waitingCount } from '../runs/decision-repository.ts';
import { getRun, latestRuns, runsSince } from '../runs/run-repository.ts';
import { weekStart } from '../runs/stats.ts';
import { createRunFor } from '../runs/start-run.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { readProfile } from '../profile/profile.ts';
import { checkSource } from '../sources/check.ts';
import { getWorkflow, listWorkflows } from '../workflows/repository.ts';
import { admit, admitForm } from './guard.ts';
/** The run pages' markup (the inspector and its trace) loads with the first run page, not with every cold start. */
const runPages = () => import('./pages/inspector.ts');
/** What the run page reads and says of a run's items and progress: with the first run page too. */
const runReads = async () => ({
  ...(await import('../runs/what-it-did.ts')),
  ...(await import('./run-progress.ts')),
  ...(await import('./bulk-notice.ts')),
});
import { messagePage } from './pages/layout.ts';
/** The Overview's markup loads with the first Overview, not with every cold start. */
const overviewPages = () => import('./pages/overview.ts');
import { demoWorkflowOf } from '../sources/maildir/demo-place.ts';
import { plural } from '../text/plural.ts';
import { sourceCheckPage } from './pages/source-check.ts';
import { streamRunWhereLive } from './sse.ts';
import type { WebDeps } from './web-deps.ts';
import { answeredFrom } from './recorded-answer.ts';

async function workflowNames(web: WebDeps): Promise<Map<string, string>> {
  return new Map((await listWorkflows(web.engine.store)).map((w) => [w.id, w.name]));
}

/** The Overview's notice: a workspace just made, or demo mail just delivered. */
function overviewNotice(c: Context): string | null {
  const created = c.req.query('created');
  if (created) return `Created the workspace ${created}: it is open now.`;
  const delivered = Number(c.req.query('delivered') ?? 0);
  if (delivered <= 0) return null;
  const answered = Number(c.req.query('answered') ?? 0);
  return answered > 0
    ? `Delivered ${plural(delivered, 'new message')}, ${answered} from senders you answered about. Press Run now: the rules your answers taught handle those without asking.`
    : `Delivered ${plural(delivered, 'new message')}. Press Run now, then answer what it asks: the next delivery shows what it learned.`;
}

/** Runs the runs page shows at a time (the next page by its cursor). */
const RUNS_PER_PAGE = 100;

/** A list's page number from the query (`?did=2`); null when absent or not a number. */
function pageNumber(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : null;
}

function notFound(c: Context, message: string): Response | Promise<Response> {
  return c.html(messagePage('Not found', message, { href: '/', text: 'Back to the overview' }), 404);
}

/** Registers the reading pages and "Run now". */
export function registerPageRoutes(app: Hono, web: WebDeps): void {
  app.get('/', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [workflows, runs, pending, stored, profile] = await Promise.all([
      listWorkflows(web.engine.store),
      // This week's runs (and the nine newest): what the overview counts and shows, never the history.
      runsSince(web.engine.store, weekStart(new Date()), 9),
      waitingCount(web.engine.store),
      readStoredSettings(web.engine.store),
      readProfile(web.engine.store),
    ]);
    const threshold = stored?.confidence_threshold ?? web.engine.settings.confidenceThreshold;
    const demo = demoWorkflowOf(workflows, web.env.HANDOFF_STATE_DIR)?.id ?? null;
    const data = { workflows, runs, pending, threshold, demo, timeZone: profile.time_zone };
    const { overviewPage } = await overviewPages();
    return c.html(overviewPage(admitted.visitor, data, overviewNotice(c)));
  });

  app.post('/runs', async (c) => {
    const admitted = await admitForm(c, web);
    if (!admitted.ok) return admitted.response;
    const workflowId = admitted.form.workflow_id ?? '';
    try {
      const run = await createRunFor(web.engine, workflowId, { kind: 'manual', detail: null });
      web.runner.launch(run, web.engine);
      return c.redirect(`/runs/${encodeURIComponent(run.id)}`, 303);
    } catch (error) {
      if (error instanceof NotFoundError) return notFound(c, error.message);
      throw error;
    }
  });

  // A workflow's source, checked on request: the POST connects and reads, acting on nothing.
  const sourcePage = async (c: Context, check: boolean) => {
    const admitted = check ? await admitForm(c, web) : await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const workflow = await getWorkflow(web.engine.store, c.req.param('id') ?? '').catch(() => null);
    if (!workflow) return notFound(c, `There is no workflow "${c.req.param('id')}".`);
    const [result, pending] = await Promise.all([
      check ? checkSource(workflow, { credentials: web.engine.credentials }) : null,
      waitingCount(web.engine.store),
    ]);
    const data = { workflow, check: result, pending };
    return c.html(sourceCheckPage(admitted.visitor, data));
  };
  app.get('/workflows/:id/source', (c) => sourcePage(c, false));
  app.post('/workflows/:id/source', (c) => sourcePage(c, true));

  app.get('/runs', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [page, names, pending] = await Promise.all([
      latestRuns(web.engine.store, RUNS_PER_PAGE, c.req.query('cursor') ?? null),
      workflowNames(web),
      waitingCount(web.engine.store),
    ]);
    const { runsPage } = await runPages();
    return c.html(runsPage(admitted.visitor, page.runs, names, pending, page.next_cursor));
  });

  app.get('/runs/:id', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    // The feed first, then the run: the page's state is never older than the last event it
    // includes, so the live stream (which resumes after that event) cannot skip the end.
    const events = feed.history(workspaceChannel(web.engine.workspace, c.req.param('id') ?? ''));
    const run = await getRun(web.engine.store, c.req.param('id')).catch(() => null);
    if (!run) return notFound(c, `There is no run "${c.req.param('id')}".`);
    const [workflow, audit, decisions, pending, recorded, session, artifacts] = await Promise.all([
      getWorkflow(web.engine.store, run.workflow_id).catch(() => null),
      auditOfRun(web.engine.store, run),
      decisionsOfRun(web.engine.store, run),
      waitingCount(web.engine.store),
      answeredFrom(c, web),
      readSession(web.engine.store, run.id).catch(() => undefined), // a trace it cannot read only hides the handoffs
      listArtifacts(web.engine.store, { runId: run.id }),
    ]);
    const { handoffPairs, inspectorPage } = await runPages();
    const { whatItDid, readBulkNotice } = await runReads();
    const did = await whatItDid(web.engine.store, audit, pageNumber(c.req.query('did')) ?? 0);
    const data = {
      run,
      workflowName: workflow?.name ?? run.workflow_id,
      events,
      audit,
      decisions,
      pending,
      recorded,
      workspace: web.platform && web.workspace ? { id: web.workspace.id, name: web.workspace.name } : null,
      bulkNotice: await readBulkNotice(web.engine.store, c.req.url),
      live: web.liveFeed,
      handoffs: handoffPairs(session?.entries ?? []),
      artifacts,
      did,
      tracePage: pageNumber(c.req.query('trace')),
    };
    return c.html(inspectorPage(admitted.visitor, data));
  });

  // Where a run is, for the run page to poll while it runs (small: no lists, no trace).
  app.get('/runs/:id/progress', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const id = c.req.param('id');
    const events = feed.history(workspaceChannel(web.engine.workspace, id));
    const run = await getRun(web.engine.store, id).catch(() => null);
    if (!run) return c.json({ error: `There is no run "${id}".` }, 404);
    c.header('Cache-Control', 'no-store');
    const { runProgress } = await runReads();
    return c.json(runProgress(run, events));
  });

  // The inspector's live feed: the page session, not the API key, opens it.
  app.get('/runs/:id/events', async (c) => {
    const admitted = await admit(c, web, 'stream');
    if (!admitted.ok) return admitted.response;
    const run = await getRun(web.engine.store, c.req.param('id')).catch(() => null);
    if (!run) return c.text('no such run', 404);
    return streamRunWhereLive(c, web.liveFeed, web.engine.workspace, run.id, c.req.query('after'));
  });
}

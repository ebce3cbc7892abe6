/**
 * The pages a person reads: Overview, Activity, Runs and the run inspector (with
 * its session-authenticated live stream), "Run now" and "Check source".
 */
import type { Context, Hono } from 'hono';
import { listAudit } from '../audit/audit.ts';
import { listArtifacts } from '../artifacts/artifacts.ts';
import { NotFoundError } from '../errors/index.ts';
import { feed, workspaceChannel } from '../events/feed.ts';
import { readSession } from '../recorder/store-sink.ts';
import { getDecision, listDecisions, listPending } from '../runs/decision-repository.ts';
import type { Decision } from '../records/runs.ts';
import { getRun, listRuns } from '../runs/run-repository.ts';
import { createRunFor } from '../runs/start-run.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { readProfile } from '../profile/profile.ts';
import { checkSource } from '../sources/check.ts';
import { getWorkflow, listWorkflows } from '../workflows/repository.ts';
import { admit, admitForm } from './guard.ts';
import { activityPage, type PendingItem } from './pages/activity.ts';
import { waitingEverywhere } from './waiting-everywhere.ts';
import { handoffPairs, inspectorPage, runsPage } from './pages/inspector.ts';
import { messagePage } from './pages/layout.ts';
import { overviewPage } from './pages/overview.ts';
import { demoWorkflowOf } from '../sources/maildir/demo-place.ts';
import { plural } from '../text/plural.ts';
import { sourceCheckPage } from './pages/source-check.ts';
import { streamRunWhereLive } from './sse.ts';
import type { WebDeps } from './web-deps.ts';

/** The decision named by `?answered=`, when it was answered (for the "Recorded" notice). */
async function answeredFrom(c: Context, web: WebDeps): Promise<Decision | null> {
  const id = c.req.query('answered');
  if (!id) return null;
  const decision = await getDecision(web.engine.store, id).catch(() => null);
  return decision?.status === 'answered' ? decision : null;
}

async function workflowNames(web: WebDeps): Promise<Map<string, string>> {
  return new Map((await listWorkflows(web.engine.store)).map((w) => [w.id, w.name]));
}

/** The waiting decisions of every workspace (or of the app's one), each with its workflow's name. */
async function pendingEverywhere(web: WebDeps): Promise<PendingItem[]> {
  const perWorkspace = await Promise.all(
    (await waitingEverywhere(web)).map(async ({ workspace, engine, pending }) => {
      const names = new Map((await listWorkflows(engine.store)).map((w) => [w.id, w.name]));
      return pending.map((decision) => ({
        decision,
        workspace,
        workflowName: names.get(decision.workflow_id) ?? decision.workflow_id,
      }));
    }),
  );
  return perWorkspace.flat();
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
      listRuns(web.engine.store),
      listPending(web.engine.store),
      readStoredSettings(web.engine.store),
      readProfile(web.engine.store),
    ]);
    const threshold = stored?.confidence_threshold ?? web.engine.settings.confidenceThreshold;
    const demo = demoWorkflowOf(workflows, web.env.HANDOFF_STATE_DIR)?.id ?? null;
    const data = { workflows, runs, pending: pending.length, threshold, demo, timeZone: profile.time_zone };
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
      listPending(web.engine.store),
    ]);
    const data = { workflow, check: result, pending: pending.length };
    return c.html(sourceCheckPage(admitted.visitor, data));
  };
  app.get('/workflows/:id/source', (c) => sourcePage(c, false));
  app.post('/workflows/:id/source', (c) => sourcePage(c, true));

  app.get('/activity', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [decisions, pending, recorded] = await Promise.all([
      listDecisions(web.engine.store),
      pendingEverywhere(web),
      answeredFrom(c, web),
    ]);
    const recent = decisions
      .filter((d) => d.status !== 'pending')
      .sort((a, b) => (b.answer?.at ?? b.expires_at).localeCompare(a.answer?.at ?? a.expires_at))
      .slice(0, 10);
    return c.html(activityPage(admitted.visitor, { pending, recent, recorded }));
  });

  app.get('/runs', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const [runs, names, pending] = await Promise.all([
      listRuns(web.engine.store),
      workflowNames(web),
      listPending(web.engine.store),
    ]);
    return c.html(runsPage(admitted.visitor, runs.slice(0, 200), names, pending.length));
  });

  app.get('/runs/:id', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    // The feed first, then the run: the page's state is never older than the last event it
    // includes, so the live stream (which resumes after that event) cannot skip the end.
    const events = feed.history(workspaceChannel(web.engine.workspace, c.req.param('id') ?? ''));
    const run = await getRun(web.engine.store, c.req.param('id')).catch(() => null);
    if (!run) return notFound(c, `There is no run "${c.req.param('id')}".`);
    const [workflow, audit, decisions, recorded, session, artifacts] = await Promise.all([
      getWorkflow(web.engine.store, run.workflow_id).catch(() => null),
      listAudit(web.engine.store, { runId: run.id }),
      listDecisions(web.engine.store),
      answeredFrom(c, web),
      readSession(web.engine.store, run.id).catch(() => undefined), // a trace it cannot read only hides the handoffs
      listArtifacts(web.engine.store, { runId: run.id }),
    ]);
    const data = {
      run,
      workflowName: workflow?.name ?? run.workflow_id,
      events,
      audit,
      decisions: decisions.filter((d) => d.run_id === run.id),
      pending: decisions.filter((d) => d.status === 'pending').length,
      recorded,
      live: web.liveFeed,
      handoffs: handoffPairs(session?.entries ?? []),
      artifacts,
    };
    return c.html(inspectorPage(admitted.visitor, data));
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

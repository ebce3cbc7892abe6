/**
/**
 * Artifacts over HTTP: the Artifacts page and each artifact's page and download (session);
 * the API's routes (`/api/artifacts*`) are in artifact-api.ts. The lists page by key
 * (artifacts/artifact-list.ts): the API keeps its bare array and says where the next page
 * starts in `X-Next-Cursor`; the page links to "Older artifacts".
 */
import type { Context, Hono } from 'hono';
import { downloadName, getArtifact, type Artifact } from '../artifacts/artifacts.ts';
import { NotFoundError } from '../errors/index.ts';
import type { ListPage } from '../runs/list-pages.ts';
import { waitingCount } from '../runs/decision-repository.ts';
import { getRun } from '../runs/run-repository.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { admit } from './guard.ts';
import { messagePage } from './pages/layout.ts';
/** The pages' markup loads with the first page request (the API's cold start never reads it). */
const pages = () => import('./pages/artifacts.ts');
import type { WebDeps } from './web-deps.ts';

/** Artifacts the page shows at a time (the next page by its cursor). */
const ARTIFACTS_PER_PAGE = 100;
/** The paging of lists (by key: artifact-list.ts, list-pages.ts), loaded with the first list request. */
const paging = () => import('../artifacts/artifact-list.ts');

/**
 * A page of the artifacts of the workspace, or of one run (404 for a run that does not
 * exist), newest first; the paging loads with the first list request.
 */
export async function artifactsFor(
  store: Store,
  ask: { run: string | undefined; limit: number; cursor: string | undefined },
): Promise<ListPage<Artifact>> {
  if (ask.run !== undefined) await getRun(store, ask.run); // NotFoundError: 404
  return (await paging()).pageOfArtifacts(store, ask);
}

/**
 * The artifact's content as a file: its own (safe, text) type, never shown in place
 * (`Content-Disposition: attachment`), never sniffed as something else.
 */
export function downloadResponse(c: Context, artifact: Artifact): Response {
  if (artifact.body === null)
    throw new NotFoundError(
      `artifact "${artifact.id}" keeps no copy of its content (${artifact.size} bytes); it is at ${artifact.pointer ?? 'its source'}`,
    );
  return c.body(artifact.body, 200, {
    'Content-Type': artifact.content_type,
    'Content-Disposition': `attachment; filename="${downloadName(artifact)}"`,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
}

/** Registers the Artifacts pages (`/artifacts`, `/artifacts/:id`, `/artifacts/:id/download`). */
export function registerArtifactPages(app: Hono, web: WebDeps): void {
  const missing = (c: Context, message: string) =>
    c.html(messagePage('Not found', message, { href: '/artifacts', text: 'Back to the artifacts' }), 404);

  app.get('/artifacts', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const store = web.engine.store;
    const runId = c.req.query('run') || undefined;
    const cursor = c.req.query('cursor') || undefined;
    const page = await artifactsFor(store, { run: runId, limit: ARTIFACTS_PER_PAGE, cursor }).catch(
      (error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      },
    );
    if (!page) return missing(c, `There is no run "${runId}".`);
    const [workflows, pending] = await Promise.all([listWorkflows(store), waitingCount(store)]);
    const names = new Map(workflows.map((w) => [w.id, w.name]));
    return c.html(
      (await pages()).artifactsPage(admitted.visitor, {
        artifacts: page.items,
        names,
        runId: runId ?? null,
        pending,
        older: page.next_cursor,
        isFirstPage: cursor === undefined,
      }),
    );
  });

  app.get('/artifacts/:id', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const store = web.engine.store;
    const artifact = await getArtifact(store, c.req.param('id')).catch(() => null);
    if (!artifact) return missing(c, `There is no artifact "${c.req.param('id')}".`);
    const [workflows, pending] = await Promise.all([listWorkflows(store), waitingCount(store)]);
    const name = workflows.find((w) => w.id === artifact.workflow_id)?.name ?? artifact.workflow_id;
    return c.html(
      (await pages()).artifactPage(admitted.visitor, {
        artifact,
        workflowName: name,
        pending,
      }),
    );
  });

  app.get('/artifacts/:id/download', async (c) => {
    const admitted = await admit(c, web);
    if (!admitted.ok) return admitted.response;
    const artifact = await getArtifact(web.engine.store, c.req.param('id')).catch(() => null);
    if (!artifact) return missing(c, `There is no artifact "${c.req.param('id')}".`);
    if (artifact.body === null)
      return missing(
        c,
        `This artifact keeps no copy of its content; it is at ${artifact.pointer ?? 'its source'}.`,
      );
    return downloadResponse(c, artifact);
  });
}

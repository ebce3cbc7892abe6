/**
 * Artifacts over HTTP: the Artifacts page and each artifact's page and download (session),
 * and `GET /api/artifacts[?run=ID][&limit=N&cursor=C]`, `/api/artifacts/:id`,
 * `/api/artifacts/:id/download` (bearer key; registered after the API guard). The lists page
 * by key (artifacts/artifact-list.ts): the API keeps its bare array and says where the next
 * page starts in `X-Next-Cursor`; the page links to "Older artifacts".
 */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { artifactSummary, downloadName, getArtifact, type Artifact } from '../artifacts/artifacts.ts';
import { NotFoundError } from '../errors/index.ts';
import type { ListPage } from '../runs/list-pages.ts';
import { listPending } from '../runs/decision-repository.ts';
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
async function artifactsFor(
  store: Store,
  ask: { run: string | undefined; limit: number; cursor: string | undefined },
): Promise<ListPage<Artifact>> {
  if (ask.run !== undefined) await getRun(store, ask.run); // NotFoundError: 404
  return (await paging()).pageOfArtifacts(store, ask);
}

/** `?limit=` as a page size (the lists' default and maximum: docs/lists.md), or a one-line 400. */
async function limitOf(value: string | undefined): Promise<number> {
  const { DEFAULT_PAGE, MAX_PAGE } = await paging();
  if (value === undefined) return DEFAULT_PAGE;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_PAGE)
    throw new HTTPException(400, { message: `limit: must be a whole number from 1 to ${MAX_PAGE}` });
  return n;
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
    const [workflows, pending] = await Promise.all([listWorkflows(store), listPending(store)]);
    const names = new Map(workflows.map((w) => [w.id, w.name]));
    return c.html(
      (await pages()).artifactsPage(admitted.visitor, {
        artifacts: page.items,
        names,
        runId: runId ?? null,
        pending: pending.length,
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
    const [workflows, pending] = await Promise.all([listWorkflows(store), listPending(store)]);
    const name = workflows.find((w) => w.id === artifact.workflow_id)?.name ?? artifact.workflow_id;
    return c.html(
      (await pages()).artifactPage(admitted.visitor, {
        artifact,
        workflowName: name,
        pending: pending.length,
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

/** Registers `/api/artifacts*`; errors become `{"error": ...}` through the app's handler. */
export function registerArtifactApi(app: Hono, web: WebDeps): void {
  app.get('/api/artifacts', async (c) => {
    const runId = c.req.query('run');
    if (runId === '') throw new HTTPException(400, { message: '?run= needs a run id (see `handoff runs`)' });
    const limit = await limitOf(c.req.query('limit'));
    const page = await artifactsFor(web.engine.store, { run: runId, limit, cursor: c.req.query('cursor') });
    // The list stays a bare array (its contract); where the next page starts is a header.
    if (page.next_cursor !== null) c.header('X-Next-Cursor', page.next_cursor);
    return c.json(page.items.map(artifactSummary));
  });

  app.get('/api/artifacts/:id', async (c) => {
    const { version: _version, ...artifact } = await getArtifact(web.engine.store, c.req.param('id'));
    return c.json(artifact);
  });

  app.get('/api/artifacts/:id/download', async (c) =>
    downloadResponse(c, await getArtifact(web.engine.store, c.req.param('id'))),
  );
}

/**
 * The API lists what the CLI lists, in the CLI's `--json` shapes, a page at a time
 * (`?limit=&cursor=` → `{items, next_cursor}`), each page read by key (shared/runs/list-pages.ts):
 * `GET /api/runs`, `GET /api/decisions` (waiting and answered), `GET /api/rules`,
 * `GET /api/audit?run=`, and `GET /api/stats`. One definition per route (api-route.ts).
 */
import { firesOf } from '../memory/rule-fires.ts';
import { ruleJson } from '../memory/rule-json.ts';
import { auditRowJson, decisionRowJson, runRowJson } from '../runs/list-json.ts';
import { auditPage, decisionsPage, rulesPage, runsPage } from '../runs/list-pages.ts';
import { readStats } from '../runs/read-stats.ts';
import { defineRoute, serveRoute, type ErrorResponse } from './api-route.ts';
import { AuditQuery, DecisionsQuery, NoQuery, RulesQuery, RunsQuery } from './list-queries.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

const ONE_PAGE = 'One page.';
const REFUSED: Record<string, ErrorResponse> = { 400: 'BadRequest', 401: 'Unauthorized' };

export const runsRoute = defineRoute({
  method: 'get',
  path: '/api/runs',
  operationId: 'listRuns',
  summary: 'Runs, newest first (as `handoff runs`)',
  query: RunsQuery,
  responses: { 200: { description: ONE_PAGE, schema: 'RunPage' }, ...REFUSED },
});

export const decisionsRoute = defineRoute({
  method: 'get',
  path: '/api/decisions',
  operationId: 'listDecisions',
  summary:
    'Decisions: a run’s oldest first; else the waiting ones oldest first, then the answered and expired newest first',
  query: DecisionsQuery,
  responses: {
    200: { description: ONE_PAGE, schema: 'DecisionPage' },
    ...REFUSED,
    404: 'NotFound',
  },
});

export const rulesRoute = defineRoute({
  method: 'get',
  path: '/api/rules',
  operationId: 'listRules',
  summary: 'Rules, oldest first, superseded ones included (as `handoff rules`)',
  query: RulesQuery,
  responses: { 200: { description: ONE_PAGE, schema: 'RulePage' }, ...REFUSED },
});

export const auditRoute = defineRoute({
  method: 'get',
  path: '/api/audit',
  operationId: 'listAudit',
  summary:
    "The audit log (as `handoff audit`): a run's entries oldest first; else run by run, newest run first",
  query: AuditQuery,
  responses: {
    200: { description: ONE_PAGE, schema: 'AuditPage' },
    ...REFUSED,
    404: 'NotFound',
  },
});

export const statsRoute = defineRoute({
  method: 'get',
  path: '/api/stats',
  operationId: 'getStats',
  summary: 'What was handled alone, by rules, by you, asked and declined (as `handoff stats`)',
  query: NoQuery,
  responses: {
    200: { description: 'Today, this week and overall, and per run.', schema: 'Stats' },
    ...REFUSED,
  },
});

/** The list routes, for the OpenAPI document. */
export const LIST_ROUTES = [runsRoute, decisionsRoute, rulesRoute, auditRoute, statsRoute];

/** Registers the list routes' handlers (app.ts loads this with the first list request, behind the API's bearer check). */
export function registerListRoutes(app: RouteSink, web: WebDeps): void {
  serveRoute(app, runsRoute, async (c, { query }) => {
    const page = await runsPage(web.engine.store, query);
    return c.json({ items: page.items.map(runRowJson), next_cursor: page.next_cursor });
  });

  serveRoute(app, decisionsRoute, async (c, { query }) => {
    const status = query.status === 'waiting' ? 'pending' : query.status;
    const page = await decisionsPage(web.engine.store, { ...query, status }); // 404 for an unknown run
    return c.json({ items: page.items.map(decisionRowJson), next_cursor: page.next_cursor });
  });

  serveRoute(app, rulesRoute, async (c, { query }) => {
    const page = await rulesPage(web.engine.store, query);
    const fires = await firesOf(
      web.engine.store,
      page.items.map((r) => r.id),
    );
    return c.json({
      items: page.items.map((r) => ruleJson(r, fires.get(r.id))),
      next_cursor: page.next_cursor,
    });
  });

  serveRoute(app, auditRoute, async (c, { query }) => {
    const page = await auditPage(web.engine.store, query); // 404 for an unknown run
    return c.json({ items: page.items.map(auditRowJson), next_cursor: page.next_cursor });
  });

  serveRoute(app, statsRoute, async (c) => c.json(await readStats(web.engine.store)));
}

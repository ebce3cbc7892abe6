/**
 * The API lists what the CLI lists, in the CLI's `--json` shapes, a page at a time
 * (`?limit=&cursor=` → `{items, next_cursor}`): `GET /api/runs`, `GET /api/decisions`
 * (waiting and answered), `GET /api/rules`, `GET /api/audit?run=`, and `GET /api/stats`.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { listAudit } from '../audit/audit.ts';
import { ruleJson } from '../memory/rule-json.ts';
import { listRules } from '../memory/rules-repository.ts';
import { fromMatches } from '../runs/answer-many.ts';
import { listDecisions } from '../runs/decision-repository.ts';
import { auditRowJson, decisionRowJson, runRowJson } from '../runs/list-json.ts';
import { getRun, listRuns, listRunsOf } from '../runs/run-repository.ts';
import { readStats } from '../runs/read-stats.ts';
import { RunStatusSchema } from '../records/runs.ts';
import { pageOf, PageQuerySchema, parseQuery } from './paging.ts';
import type { WebDeps } from './web-deps.ts';

const RunsQuery = PageQuerySchema.extend({
  workflow: z.string().min(1).optional(),
  status: RunStatusSchema.optional(),
}).strict();

const DecisionsQuery = PageQuerySchema.extend({
  status: z.enum(['pending', 'answered', 'expired']).optional(),
  run: z.string().min(1).optional(),
  workflow: z.string().min(1).optional(),
  from: z.string().min(1).optional(),
}).strict();

const RulesQuery = PageQuerySchema.extend({
  workflow: z.string().min(1).optional(),
  source: z.enum(['you', 'learned']).optional(),
}).strict();

const AuditQuery = PageQuerySchema.extend({ run: z.string().min(1).optional() }).strict();

/** Registers the list routes (behind the API's bearer check). */
export function registerListRoutes(app: Hono, web: WebDeps): void {
  app.get('/api/runs', async (c) => {
    const q = parseQuery(RunsQuery, c.req.query());
    const store = web.engine.store;
    const runs = q.workflow ? await listRunsOf(store, q.workflow) : await listRuns(store);
    return c.json(pageOf(runs.filter((r) => !q.status || r.status === q.status).map(runRowJson), q));
  });

  app.get('/api/decisions', async (c) => {
    const q = parseQuery(DecisionsQuery, c.req.query());
    const from = q.from?.trim().toLowerCase();
    const decisions = (await listDecisions(web.engine.store)).filter(
      (d) =>
        (!q.status || d.status === q.status) &&
        (!q.run || d.run_id === q.run) &&
        (!q.workflow || d.workflow_id === q.workflow) &&
        (!from || fromMatches(d.sender, from)),
    );
    return c.json(pageOf(decisions.map(decisionRowJson), q));
  });

  app.get('/api/rules', async (c) => {
    const q = parseQuery(RulesQuery, c.req.query());
    const rules = (await listRules(web.engine.store)).filter(
      (r) => (!q.workflow || r.workflow_id === q.workflow) && (!q.source || r.source === q.source),
    );
    return c.json(pageOf(rules.map(ruleJson), q));
  });

  app.get('/api/audit', async (c) => {
    const q = parseQuery(AuditQuery, c.req.query());
    const entries = await listAudit(web.engine.store, q.run ? { runId: q.run } : {});
    if (q.run && entries.length === 0) await getRun(web.engine.store, q.run); // 404 for an unknown run
    return c.json(pageOf(entries.map(auditRowJson), q));
  });

  app.get('/api/stats', async (c) => {
    parseQuery(z.strictObject({}), c.req.query());
    return c.json(await readStats(web.engine.store));
  });
}

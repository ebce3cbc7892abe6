import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Hono } from 'hono';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { openApiDocument } from '../../shared/web/openapi.ts';
import { makeEngine } from '../web/support.ts';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import type { RunLauncher } from '../../shared/web/run-launcher.ts';
import type { Dovecot } from '../support/dovecot.ts';
import { eventWorkflowYaml } from '../support/engine-fixture.ts';
import { demoInboxOnImap } from './imap-deployment.ts';
import { asIamCaller, UI } from './support.ts';

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let app: Hono;
let launcher: RunLauncher;
let dir: string;
let dovecot: Dovecot;
let imapYaml: string;
const doc = openApiDocument() as Doc;

beforeAll(async () => {
  const made = await makeEngine({ UI_BASE_URL: UI });
  dir = made.dir;
  ({ dovecot, yaml: imapYaml } = await demoInboxOnImap(made.engine.credentials));
  ({ app, launcher } = lambdaWebApp({
    engine: made.engine,
    env: made.env,
    linkKey: { get: async () => Buffer.alloc(32, 1) },
    onWorkflowChange: async () => undefined,
  }));
});
afterAll(async () => {
  await dovecot?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** A request as API Gateway passes it on: at the deployment's host (UI_BASE_URL). */
/** As an IAM caller (the gateway's IAM route) for `/api/*`, else as anyone. */
const atGateway = (pathAndQuery: string, init?: RequestInit) =>
  pathAndQuery.startsWith('/api/') && pathAndQuery !== '/api/openapi.json'
    ? asIamCaller(app, `${UI}${pathAndQuery}`, init)
    : app.request(`${UI}${pathAndQuery}`, init);

/** Every `/api` route the app serves, as OpenAPI path + method. */
function servedApiRoutes(): { path: string; method: string }[] {
  const seen = new Set<string>();
  return app.routes
    .filter((r) => r.path.startsWith('/api/') && r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => ({ path: r.path.replace(/:([A-Za-z_]+)/g, '{$1}'), method: r.method.toLowerCase() }))
    .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`));
}

/** Every `$ref` in the document. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref') out.push(String(v));
      else refs(v, out);
    }
  return out;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with a title and version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect(app.routes.some((r) => r.path === '/api/openapi.json')).toBe(true);
  });

  it('describes every /api route the app serves, with responses', () => {
    const served = servedApiRoutes();
    expect(served.length).toBeGreaterThanOrEqual(8);
    for (const { path, method } of served) {
      const operation = doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
      expect(operation).toBeDefined();
      expect(Object.keys(operation!.responses ?? {}).length).toBeGreaterThan(0);
    }
  });

  it('describes nothing the app does not serve', () => {
    const served = new Set(servedApiRoutes().map((r) => `${r.method} ${r.path}`));
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item).filter((k) => METHODS.includes(k)))
        expect(served).toContain(`${method} ${path}`);
  });

  it('is well-formed: responses described, path parameters declared, ids unique, refs resolve', () => {
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/api/')).toBe(true);
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const shared = (item.parameters as { name: string; in: string }[] | undefined) ?? [];
      for (const method of Object.keys(item).filter((k) => METHODS.includes(k))) {
        const op = item[method] as {
          operationId: string;
          responses: Record<string, { description?: string; $ref?: string }>;
          parameters?: { name: string; in: string }[];
        };
        expect(operationIds.has(op.operationId)).toBe(false);
        operationIds.add(op.operationId);
        const declared = [...shared, ...(op.parameters ?? [])]
          .filter((p) => p.in === 'path')
          .map((p) => p.name);
        expect(declared.sort()).toEqual(params.sort());
        for (const [status, response] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(response.description ?? response.$ref).toBeTruthy();
        }
      }
    }
    for (const target of refs(doc)) {
      const [, section, name] = /^#\/components\/(\w+)\/(\w+)$/.exec(target) ?? [];
      expect(doc.components[section!]?.[name!]).toBeDefined();
    }
  });

  it('matches the JSON the routes return', async () => {
    const schemas = doc.components.schemas as Record<string, { required: string[]; properties: object }>;
    const keys = (name: string) => Object.keys(schemas[name]!.properties).sort();
    /** The fields of `value` the schema documents (some, like a failed run's error, are optional). */
    const documented = (value: object, name: string) =>
      Object.keys(value)
        .sort()
        .filter((k) => k in schemas[name]!.properties);
    const required = (name: string) => [...schemas[name]!.required].sort();
    const body = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      return (await res.json()) as Record<string, unknown>;
    };
    const missing = await body(await atGateway('/api/runs/run_missing'), 404);
    expect(Object.keys(missing)).toEqual(schemas.Error!.required);

    const maildir = path.join(dir, 'Maildir');
    await createDemoMaildir(maildir);
    const yaml = demoWorkflowYaml(maildir);
    const put = (text: string) => ({
      method: 'PUT',
      body: text,
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(
      Object.keys(
        await body(await atGateway('/api/workflows/hooks', put(eventWorkflowYaml('hooks'))), 201),
      ).sort(),
    ).toEqual(keys('WorkflowSummary'));
    // A Lambda has no local folders: the API refuses a Maildir workflow; the same on IMAP is saved.
    const refused = await body(await atGateway('/api/workflows/inbox-triage', put(yaml)), 400);
    expect(Object.keys(refused)).toEqual(schemas.Error!.required);
    expect(
      Object.keys(await body(await atGateway('/api/workflows/inbox-triage', put(imapYaml)), 201)).sort(),
    ).toEqual(keys('WorkflowSummary'));
    const started = await body(await atGateway('/api/workflows/inbox-triage/runs', { method: 'POST' }), 202);
    expect(Object.keys(started)).toEqual(keys('RunStarted'));
    await launcher.idle();
    const run = await body(await atGateway(`/api/runs/${String(started.run_id)}`), 200);
    expect(documented(run, 'RunSummary')).toEqual(Object.keys(run).sort());
    expect(Object.keys(run).sort()).toEqual(required('RunSummary')); // a waiting run: no error
    const pending = (await (await atGateway('/api/pending')).json()) as Record<string, unknown>[];
    expect(documented(pending[0]!, 'PendingDecision')).toEqual(Object.keys(pending[0]!).sort());
    // No specialists: no agent. Drafts are there only when an option carries words (issue 30).
    expect(
      Object.keys(pending[0]!)
        .filter((k) => k !== 'drafts')
        .sort(),
    ).toEqual(required('PendingDecision'));
    const answer = { method: 'POST', body: JSON.stringify({ action: 'skip' }) };
    const decided = await body(
      await atGateway(`/api/decisions/${String(pending[0]!.decision_id)}`, answer),
      200,
    );
    expect(Object.keys(decided).sort()).toEqual(keys('DecideResult'));
    const again = await body(
      await atGateway(`/api/decisions/${String(pending[0]!.decision_id)}`, answer),
      409,
    );
    expect(Object.keys(again)).toEqual(['error']);
    // Many at once, in the Lambda app as locally: one documented result per answer.
    const many = await atGateway('/api/decisions', {
      method: 'POST',
      body: JSON.stringify({
        answers: [
          { id: pending[1]!.decision_id, action: 'skip', once: true },
          { id: 'dec_nope', action: 'skip' },
        ],
      }),
    });
    expect(many.status).toBe(200);
    const [taken, refusedAnswer] = (await many.json()) as Record<string, unknown>[];
    expect(documented(taken!, 'AnswerResult')).toEqual(Object.keys(taken!).sort());
    expect(taken).toMatchObject({ ok: true, learned: 'Nothing learned (just this once)' });
    expect(Object.keys(refusedAnswer!).sort()).toEqual(['action', 'error', 'id', 'ok']);
  });
});

describe('the routes defined once with zod', () => {
  it('the list and answer routes are in the document with their parameters, bodies and schemas', () => {
    const op = (p: string, m: string) => doc.paths[p]?.[m] as Record<string, unknown> | undefined;
    const names = (o: Record<string, unknown> | undefined) =>
      ((o?.parameters ?? []) as { name: string }[]).map((p) => p.name).sort();
    const ok = (o: Record<string, unknown> | undefined) =>
      JSON.stringify((o?.responses as Record<string, unknown>)?.['200']);
    expect(names(op('/api/runs', 'get'))).toEqual(['cursor', 'limit', 'status', 'workflow']);
    expect(names(op('/api/decisions', 'get'))).toEqual([
      'cursor',
      'from',
      'limit',
      'run',
      'status',
      'workflow',
    ]);
    expect(names(op('/api/rules', 'get'))).toEqual(['cursor', 'limit', 'source', 'workflow']);
    expect(names(op('/api/audit', 'get'))).toEqual(['cursor', 'limit', 'run']);
    for (const [p, row] of [
      ['/api/runs', 'RunRow'],
      ['/api/decisions', 'DecisionRow'],
      ['/api/rules', 'RuleRow'],
      ['/api/audit', 'AuditRow'],
    ] as const) {
      expect(ok(op(p, 'get'))).toContain(`#/components/schemas/${row}`);
      expect(ok(op(p, 'get'))).toContain('next_cursor');
      expect(doc.components.schemas?.[row]).toBeDefined();
    }
    expect(ok(op('/api/stats', 'get'))).toContain('#/components/schemas/Stats');
    expect(JSON.stringify(op('/api/decisions', 'post')?.requestBody)).toContain(
      '#/components/schemas/Answer',
    );
    expect(ok(op('/api/decisions', 'post'))).toContain('#/components/schemas/AnswerResult');
    expect(names(op('/api/runs/{id}/accept-suggestions', 'post'))).toEqual(['id']);
    expect(ok(op('/api/rules/{id}/undo', 'post'))).toContain('#/components/schemas/LearnedRule');
    expect(JSON.stringify(op('/api/audit', 'get')?.responses)).toContain('#/components/responses/NotFound');
  });
});

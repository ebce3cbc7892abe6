/**
 * The API's lists on the AWS path: the Lambda app (an IAM caller through /admin) over DynamoDB
 * (dynalite), paged with a cursor through more than a page, in the CLI's shapes.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { lambdaWebApp } from '../../shared/aws/lambda-web.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { asIamCaller, UI } from './support.ts';

let dynalite: Awaited<ReturnType<typeof startDynalite>>;
let fixture: EngineFixture;
let dir: string;
let app: ReturnType<typeof lambdaWebApp>['app'];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-list-ddb-'));
  dynalite = await startDynalite();
  const client = dynaliteClient(dynalite.endpoint);
  const table = `handoff-lists-${randomUUID()}`;
  await ensureTable(client, table);
  fixture = await engineFixture({
    messages: Array.from({ length: 60 }, (_, i) =>
      mail({ from: `a${i}@vendor${i}.example`, subject: `Question ${i}` }),
    ),
    store: new DynamoDbStore(createDocumentClient(client), table),
    model: () =>
      new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.4, reasoning: 'unsure' }))),
  });
  for (let i = 0; i < 3; i++) await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  ({ app } = lambdaWebApp({
    engine: fixture.deps,
    env: loadEnv({ HANDOFF_STATE_DIR: dir, UI_BASE_URL: UI }),
    linkKey: { get: async () => Buffer.alloc(32, 3) },
    onWorkflowChange: async () => undefined,
  }));
}, 60_000);

afterAll(async () => {
  await fixture?.cleanup();
  await dynalite?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

async function all(list: string, limit: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = list.includes('?') ? '&' : '?';
    const res = await asIamCaller(
      app,
      `${UI}${list}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect({ list, status: res.status }).toEqual({ list, status: 200 });
    const page = (await res.json()) as { items: Record<string, unknown>[]; next_cursor: string | null };
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) return items;
  }
  throw new Error('the pages never ended');
}

it('lists questions and the audit through the Lambda app on DynamoDB, a cursor at a time', async () => {
  const pending = await listPending(fixture.store);
  expect(pending.length).toBeGreaterThan(0);
  expect(pending.length).toBe(60); // the first run asks about every message: three pages below
  const questions = await all('/api/decisions?status=pending', 25);
  expect(questions.map((d) => d.decision_id)).toEqual(pending.map((d) => d.id));
  const runId = String(questions[0]!.run_id);
  const ofRun = await all(`/api/decisions?status=pending&run=${runId}`, 25);
  expect(ofRun.length).toBe(pending.filter((d) => d.run_id === runId).length);
  expect(ofRun.every((d) => d.run_id === runId)).toBe(true);
  const audit = await all('/api/audit', 2);
  expect(audit.length).toBeGreaterThan(2);
  expect(new Set(audit.map((e) => JSON.stringify(e))).size).toBe(audit.length);
  const runs = await all('/api/runs', 1);
  expect(runs.length).toBe(3);
  expect(new Set(runs.map((r) => r.run_id)).size).toBe(3);
  const bad = await asIamCaller(app, `${UI}/api/rules?cursor=nope`);
  expect(bad.status).toBe(400);
  expect(await bad.json()).toEqual({ error: 'cursor: not one this list gave; start again without it' });
});

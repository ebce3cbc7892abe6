/**
 * What opening and answering one decision page costs in DynamoDB requests (dynalite, every
 * request counted by a middleware on the client, as bench/lambda-loop.ts counts them). The
 * counts are deterministic: a change that reads the workspace's whole decision list, reads a
 * record twice or writes one record in two requests fails here.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { listPending, runDecisionPrefix } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { createApp } from '../../shared/web/app.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = Buffer.alloc(32, 7); // the fixture's link key
const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand']);

type Sent = { command: string; pk: string };

describe('DynamoDB requests of a decision page', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  let client: DynamoDBClient;
  let fixture: EngineFixture | undefined;
  const sent: Sent[] = [];
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynaliteClient(dynalite.endpoint);
    // Every request the store sends, with the partition it names (a Query's :pk, a Get's key).
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          Key?: { pk?: { S?: string } };
          Item?: { pk?: { S?: string } };
          ExpressionAttributeValues?: Record<string, { S?: string }>;
        };
        const values = input.ExpressionAttributeValues ?? {};
        const pk = input.Key?.pk?.S ?? input.Item?.pk?.S ?? values[':pk']?.S ?? values[':g']?.S ?? '';
        sent.push({ command: context.commandName ?? '', pk });
        return next(args);
      },
      { step: 'serialize', name: 'countRequests' },
    );
  });
  afterEach(() => fixture?.cleanup());
  afterAll(async () => {
    client.destroy();
    await dynalite.stop();
  });

  /** A run over four messages, all unsure, paused on DynamoDB; the learner is the offline model. */
  async function pausedRun() {
    const table = `handoff-page-${randomUUID()}`;
    await ensureTable(client, table);
    const store = new DynamoDbStore(createDocumentClient(client), table);
    const executor = executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'unsure' }));
    fixture = await engineFixture({
      store,
      messages: ['ann', 'bob', 'cy', 'di'].map((who) =>
        mail({ from: `${who}@partner.example`, subject: `Hello from ${who}` }),
      ),
      model: () => new ScriptedModel(executor),
    });
    fixture.deps.models = async (role) =>
      role === 'fallback' ? new OfflineModel() : new ScriptedModel(executor);
    await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const link = new URL((fixture.notices.find((n) => n.kind === 'asked') as { link: string }).link);
    const app = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir }),
      linkKey: { get: async () => KEY },
      requireToken: true,
    });
    return { app, store, link };
  }

  const reads = (requests: Sent[]) => requests.filter((r) => READS.has(r.command));
  const writes = (requests: Sent[]) => requests.filter((r) => !READS.has(r.command));

  it("opens a page in 3 reads and answers it in 6 reads and 5 writes, reading the run's questions by their key", async () => {
    // Prepare: four questions waiting.
    const { app, store, link } = await pausedRun();
    const pending = await listPending(store);
    expect(pending).toHaveLength(4);
    const first = decodeURIComponent(link.pathname.split('/').pop()!);
    expect(first.startsWith(runDecisionPrefix(pending[0]!.run_id))).toBe(true);
    const token = link.searchParams.get('token')!;

    // Act: open the page the notice links to, then answer it.
    sent.length = 0;
    const opened = await app.request(`${link.pathname}${link.search}`);
    const onOpen = sent.splice(0);
    const answered = await app.request(`/decide/${first}`, {
      method: 'POST',
      body: new URLSearchParams({ token, action: 'archive' }),
    });
    const onAnswer = sent.splice(0);

    // Assess: the page and the answer worked ...
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('and 3 more after this');
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('Next question from this run');
    expect((await listPending(store)).map((d) => d.id)).not.toContain(first);
    // ... opening: the spent-token check, the decision and the settings in one batch, the
    // run's questions (one keyed Query), the workflow;
    expect(onOpen.map((r) => `${r.command} ${r.pk}`)).toEqual([
      'BatchGetItemCommand ',
      'QueryCommand default#decisions',
      'GetItemCommand default#workflows',
    ]);
    // ... answering: the token and the decision in one batch, the workflow and the run in
    // another; no Query of the status index (pending decisions, waiting runs), the run's
    // questions read by their key, the interrupt left unread while others wait.
    expect(reads(onAnswer).length).toBeLessThanOrEqual(6);
    expect(writes(onAnswer).length).toBeLessThanOrEqual(5);
    expect(onAnswer.filter((r) => r.command === 'BatchGetItemCommand')).toHaveLength(2);
    expect(onAnswer.filter((r) => r.command === 'GetItemCommand').map((r) => r.pk)).toEqual([
      'default#usage',
    ]);
    expect(onAnswer.filter((r) => r.pk.includes('#decisions#pending'))).toEqual([]);
    expect(onAnswer.filter((r) => r.pk.includes('#runs#waiting'))).toEqual([]);
    expect(onAnswer.filter((r) => r.pk.endsWith('#interrupts'))).toEqual([]);
    // The link is spent with the answer, in one commit (one TransactWriteItems on DynamoDB;
    // dynalite has none, so here the two conditional writes follow each other).
    const spent = onAnswer.findIndex((r) => r.pk === 'default#tokens');
    expect(onAnswer[spent - 1]).toEqual({ command: 'PutItemCommand', pk: 'default#decisions' });
  });
});

/**
 * Two people answering a run's last two questions at the same moment: each reads the other's
 * question still waiting before either answer lands. The run must still resume exactly once
 * (never zero times: a run left waiting with every question answered; never twice). On
 * DynamoDB Local an answer's transaction checks that the newest other question still waits;
 * on dynalite (no transactions) and the JSON files what still waits is read after the answer.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { signDecisionToken } from '../../shared/links/decision-token.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import type { CommitOptions, Store, Write } from '../../shared/store/store.ts';
import { createApp } from '../../shared/web/app.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { startDynamoDbLocal } from '../support/dynamodb-local.ts';
import { engineFixture, eventWorkflowYaml, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const KEY = Buffer.alloc(32, 9);

/**
 * `store`, whose commits of an answer wait until `parties` of them have arrived (or a second
 * has passed): every answer has read what still waits before any lands.
 */
function answersMeet(store: Store, parties: number): Store {
  const waiting: (() => void)[] = [];
  const isAnswer = (writes: readonly Write[]) =>
    writes[0]?.kind === 'update' &&
    writes[0].collection === 'decisions' &&
    writes[0].record.status === 'answered';
  const commit = async (writes: readonly Write[], options?: CommitOptions) => {
    if (isAnswer(writes)) {
      await new Promise<void>((release) => {
        waiting.push(release);
        if (waiting.length === parties) waiting.splice(0).forEach((go) => go());
        else setTimeout(release, 1_000);
      });
    }
    return store.commit!(writes, options);
  };
  return new Proxy(store, {
    get(target, name) {
      if (name === 'commit') return commit;
      const value = Reflect.get(target, name) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type Backend = { name: string; start?: () => Promise<{ endpoint: string; stop(): Promise<void> }> };
const BACKENDS: Backend[] = [
  { name: 'the JSON files' },
  { name: 'dynalite', start: startDynalite },
  { name: 'DynamoDB Local', start: startDynamoDbLocal },
];

describe.each(BACKENDS)('the last two answers at once, on $name', ({ start }) => {
  let dynamodb: { endpoint: string; stop(): Promise<void> } | undefined;
  let client: DynamoDBClient | undefined;
  let fixture: EngineFixture | undefined;
  beforeAll(async () => {
    if (!start) return;
    dynamodb = await start();
    client = dynaliteClient(dynamodb.endpoint);
  });
  afterEach(() => fixture?.cleanup());
  afterAll(async () => {
    client?.destroy();
    await dynamodb?.stop();
  });

  it('resume the run exactly once', async () => {
    // Prepare: a run paused on two unsure items; answers meet before either lands.
    let store: Store | undefined;
    if (client) {
      const table = `handoff-race-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    }
    const executor = executorScript(() => ({ action: 'file_ticket', confidence: 0.3, reasoning: 'unsure' }));
    fixture = await engineFixture({
      messages: [],
      model: () => new ScriptedModel(executor),
      ...(store ? { store } : {}),
    });
    fixture.deps.models = async (role) =>
      role === 'fallback' ? new OfflineModel() : new ScriptedModel(executor);
    await saveWorkflow(fixture.store, parseWorkflow(eventWorkflowYaml('hooks'), 'hooks.yaml'));
    const items = ['ann@one.example', 'bob@two.example'].map((sender, i) => ({
      id: `item-${i}`,
      sender,
      subject: `Report ${i}`,
    }));
    const run = await startRun(fixture.deps, 'hooks', { kind: 'webhook', detail: JSON.stringify({ items }) });
    const pending = await listPending(fixture.store);
    expect(pending).toHaveLength(2);
    const engine = { ...fixture.deps, store: answersMeet(fixture.store, 2) };
    const app = createApp({
      engine,
      env: loadEnv({ HANDOFF_STATE_DIR: fixture.dir }),
      linkKey: { get: async () => KEY },
      requireToken: true,
    });
    const answer = (id: string, expiresAt: string) =>
      app.request(`/decide/${id}`, {
        method: 'POST',
        body: new URLSearchParams({
          token: signDecisionToken(KEY, id, new Date(expiresAt)),
          action: 'file_ticket',
        }),
      });

    // Act: both answer at once.
    const responses = await Promise.all(pending.map((d) => answer(d.id, d.expires_at)));

    // Assess: both answers stand, nothing waits, and the run resumed once, to its end.
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await listPending(fixture.store)).toEqual([]);
    const resumed = fixture.events.filter((e) => e.channel === run.id && e.kind === 'resumed');
    expect(resumed.map((e) => e.text)).toEqual(['Every question answered; resuming']);
    expect((await getRun(fixture.store, run.id)).status).toBe('completed');
  });
});

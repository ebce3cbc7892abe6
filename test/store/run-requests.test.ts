import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript, type ItemView } from '../support/scripted-model.ts';

type Request = { command: string; collection: string };

/** A DynamoDB store on a fresh table that notes every request's command and collection. */
async function countedStore(client: DynamoDBClient) {
  const table = `handoff-requests-${randomUUID()}`;
  await ensureTable(client, table);
  const docs = createDocumentClient(client);
  const sent: Request[] = [];
  const send = docs.send.bind(docs);
  docs.send = ((command: { input: Record<string, unknown> }) => {
    const input = command.input as {
      Key?: { pk: string };
      Item?: { pk: string };
      RequestItems?: Record<string, { Keys?: { pk: string }[] }>;
    };
    const collection = input.Key?.pk ?? input.Item?.pk ?? input.RequestItems?.[table]?.Keys?.[0]?.pk ?? '';
    sent.push({ command: command.constructor.name, collection });
    return send(command as never);
  }) as typeof docs.send;
  return { store: new DynamoDbStore(docs, table), sent };
}

const count = (sent: Request[], command: string, collection: string) =>
  sent.filter((r) => r.command === command && r.collection === collection).length;

/** Sure of receipts, unsure of everything else. */
const proposals = (item: ItemView) =>
  item.subject.startsWith('Receipt')
    ? { action: 'archive', confidence: 0.95, reasoning: 'a receipt' }
    : { action: 'archive', confidence: 0.4, reasoning: 'unsure' };

describe('DynamoDB requests of a run', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  let client: DynamoDBClient;
  let fixture: EngineFixture | undefined;
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = dynaliteClient(dynalite.endpoint);
  });
  afterEach(() => fixture?.cleanup());
  afterAll(async () => {
    client.destroy();
    await dynalite.stop();
  });

  it("reads a page's claims, an interrupt's decisions and the claims a resume takes back in one request each", async () => {
    // Prepare: 30 messages (three pages of 10), 6 of them unsure.
    const { store, sent } = await countedStore(client);
    const messages = Array.from({ length: 30 }, (_, i) =>
      mail({ from: `shop${i}@vendor.example`, subject: i % 5 === 0 ? `Question ${i}` : `Receipt ${i}` }),
    );
    fixture = await engineFixture({
      messages,
      store,
      model: () => new ScriptedModel(executorScript(proposals)),
    });

    // Act: the run, then every question answered.
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const duringRun = sent.splice(0);
    const pending = await listPending(store);
    for (const decision of pending) await decide(fixture.deps, decision.id, 'archive', null);

    // Assess: the run asked 6 questions; claims were read a page at a time, not an item at a time.
    expect(run.counts).toMatchObject({ acted: 24, deferred: 6 });
    expect(pending).toHaveLength(6);
    expect(count(duringRun, 'GetCommand', 'outcomes')).toBeLessThanOrEqual(1);
    expect(count(duringRun, 'BatchGetCommand', 'outcomes')).toBeLessThanOrEqual(4);
    // Each answer asks "anything pending?" with one request for the interrupt's last questions
    // and, only when those are all answered, one more for the rest; the resume reads them all
    // once: a few requests per answer, never one per decision (that would be 6 × 6).
    expect(count(sent, 'GetCommand', 'decisions')).toBeLessThanOrEqual(6 * 2);
    expect(count(sent, 'BatchGetCommand', 'decisions')).toBeLessThanOrEqual(6 * 2 + 1);
    // Resuming re-claims the 6 held items: the claims in the way are read in one request.
    expect(count(sent, 'GetCommand', 'outcomes')).toBe(0);
    expect(count(sent, 'BatchGetCommand', 'outcomes')).toBeLessThanOrEqual(1);
  });
});

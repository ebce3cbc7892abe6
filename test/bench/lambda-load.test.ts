import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseShape, runLoad } from '../../bench/lambda-load.ts';
import { countWrites } from '../../bench/partition-writes.ts';
import { shardOf } from '../../shared/store/dynamodb-keys.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';

describe('bench:lambda load simulation', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    dynalite = await startDynalite();
  });
  afterAll(() => dynalite.stop());

  it('counts each item a put, a batch, a delete and a commit write under its partition key', async () => {
    const client = dynaliteClient(dynalite.endpoint);
    try {
      const table = `handoff-count-${randomUUID()}`;
      await ensureTable(client, table);
      const counts = countWrites(client);
      const store = new DynamoDbStore(createDocumentClient(client), table, { workspace: 'team-a' });
      await store.create('runs', { id: 'run-1', workflow_id: 'inbox', status: 'running', started_at: 'x' });
      const ids = Array.from({ length: 30 }, (_, i) => `run-1:item-${i}`);
      // dynalite has no transactions: after the refused TransactWriteItems, 30 puts in two BatchWriteItems.
      await store.commit(
        ids.map((id) => ({ kind: 'put' as const, collection: 'audit' as const, record: { id } })),
      );
      await store.delete('runs', 'run-1');
      await store.get('runs', 'run-1'); // a read: not counted

      const perShard = new Map<string, number>();
      for (const id of ids) {
        const key = `team-a#audit#${shardOf(id)}`;
        perShard.set(key, (perShard.get(key) ?? 0) + 1);
      }
      expect(counts.byKey).toEqual(new Map([['team-a#runs', 2], ...perShard]));
      // The refused TransactWriteItems wrote nothing and is not counted.
      expect(counts.itemWrites).toBe(2 + 30);
      expect(counts.requests).toBe(1 + 2 + 1);
      // A run's put writes each index it carries: by status, by workflow and (issue 32) by time.
      expect(counts.byIndexKey).toEqual(
        new Map([
          ['team-a#runs#running', 1],
          ['team-a#runs#inbox', 1],
          ['team-a#runs#time', 1],
        ]),
      );
    } finally {
      client.destroy();
    }
  });

  it('runs every workspace’s workflows through the engine and finds no partition key hot', async () => {
    const result = await runLoad({ workspaces: 3, workflows: 2, items: 8, answer: true });

    expect(result).toMatchObject({ runs: 6, items: 48, runs_not_completed: 0 });
    expect(result.questions).toBeGreaterThan(0);
    expect(result.item_writes).toBeGreaterThan(result.items * 2);
    // Every key belongs to one of the three workspaces.
    const workspaces = new Set(result.hottest.map((k) => k.key.split('#')[0]));
    for (const w of workspaces) expect(w).toMatch(/^team-0[1-3]$/);
    // Three workspaces: no key near a third; the old layout's collection key took far more.
    expect(result.hottest[0]!.share).toBeLessThan(0.1);
    expect(result.hottest_before.share).toBeGreaterThan(3 * result.hottest[0]!.share);
    expect(result.pass).toBe(result.hottest[0]!.share <= 0.05);
  });

  it('refuses a load shape it cannot read, saying the form it wants', () => {
    expect(parseShape('20x5x200')).toEqual({ workspaces: 20, workflows: 5, items: 200, answer: false });
    expect(parseShape('2x1x9+answers')).toEqual({ workspaces: 2, workflows: 1, items: 9, answer: true });
    expect(() => parseShape('20x5')).toThrow(
      "--load must be WORKSPACESxWORKFLOWSxITEMS, optionally +answers (e.g. 20x5x200+answers), not '20x5'.",
    );
  });
});

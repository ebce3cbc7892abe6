import { describe, expect, it } from '@jest/globals';
import { countingStore } from '../../bench/instruments.ts';
import { MemoryStore } from '../../bench/memory-store.ts';
import type { JsonRecord } from '../../shared/store/store.ts';

/** A store with one of the optional methods, as the DynamoDB store has. */
class IndexedStore extends MemoryStore {
  async listRunsOf(workflowId: string): Promise<JsonRecord[]> {
    return (await this.list('runs')).filter((r) => r.workflow_id === workflowId);
  }
}

describe('the engine bench’s counting store', () => {
  it('has the optional methods of the store it wraps, and only those, so the engine takes the same path', async () => {
    const counting = countingStore(new IndexedStore());
    await counting.create('runs', { id: 'r1', workflow_id: 'w' });

    expect(await counting.listRunsOf!('w')).toEqual([{ id: 'r1', workflow_id: 'w', version: 1 }]);
    expect(countingStore(new MemoryStore()).listRunsOf).toBeUndefined();
    expect(counting.calls).toMatchObject({ create: 1, listRunsOf: 1 });
    expect([counting.writes, counting.reads]).toEqual([1, 1]);
  });

  it('counts writes and reads by collection, times them, and starts again on reset', async () => {
    const counting = countingStore(new MemoryStore());
    await counting.put('audit', { id: 'a1' });
    await counting.create('outcomes', { id: 'o1' });
    await counting.update('outcomes', { id: 'o1', status: 'done' }, 1);
    await counting.get('outcomes', 'o1');

    expect(counting.writesByCollection).toEqual({ audit: 1, outcomes: 2 });
    expect(counting.readsByCollection).toEqual({ outcomes: 1 });
    expect(counting.ms).toBeGreaterThan(0);
    counting.reset();
    expect([counting.writes, counting.reads, counting.ms]).toEqual([0, 0, 0]);
    expect(await counting.inner.get('outcomes', 'o1')).toMatchObject({ status: 'done', version: 2 });
  });

  it('counts a batch write as one durable write, and each of its records by collection', async () => {
    const counting = countingStore(new MemoryStore()) as ReturnType<typeof countingStore> & {
      commit(writes: unknown[]): Promise<unknown[]>;
    };
    await counting.create('outcomes', { id: 'o1' });
    counting.reset();
    const results = await counting.commit([
      { kind: 'create', collection: 'outcomes', record: { id: 'o1' } },
      { kind: 'create', collection: 'outcomes', record: { id: 'o2' } },
      { kind: 'put', collection: 'audit', record: { id: 'a1' } },
    ]);

    expect(results.map((r) => (r as { ok: boolean }).ok)).toEqual([false, true, true]);
    expect(counting.writes).toBe(1);
    expect(counting.writesByCollection).toEqual({ outcomes: 2, audit: 1 });
    expect(await counting.inner.get('outcomes', 'o2')).toEqual({ id: 'o2', version: 1 });
  });
});

/**
 * `readInBatches`: pages through `readMany` in order, and a caller that stops early (the
 * trigger, at the first new item) has read no more than the first batch — one message
 * when it asks for a first batch of one.
 */
import { describe, expect, it } from '@jest/globals';
import { readInBatches, type ItemSource, type ReadResult } from '../../shared/sources/source.ts';

function countingSource(refs: string[]) {
  const batches: string[][] = [];
  const source = {
    listRefs: async () => refs,
    read: async (ref: string): Promise<ReadResult> => ({ ok: false, ref, reason: 'one by one' }),
    readMany: async (asked: readonly string[]): Promise<ReadResult[]> => {
      batches.push([...asked]);
      return asked.map((ref) => ({ ok: false, ref, reason: 'not parsed here' }));
    },
    perform: async () => 'nothing',
  } as unknown as ItemSource;
  return { source, batches };
}

const refs = Array.from({ length: 25 }, (_, i) => `m${i}`);

describe('readInBatches', () => {
  it('reads every ref once, in order, a page at a time after a first batch of the size asked', async () => {
    const { source, batches } = countingSource(refs);
    const read: string[] = [];
    for await (const r of readInBatches(source, refs, 10, 1)) if (!r.ok) read.push(r.ref);

    expect(read).toEqual(refs);
    expect(batches.map((b) => b.length)).toEqual([1, 10, 10, 4]);
  });

  it('reads pages only, without a first size', async () => {
    const { source, batches } = countingSource(refs);
    for await (const _ of readInBatches(source, refs, 10)) void _;
    expect(batches.map((b) => b.length)).toEqual([10, 10, 5]);
  });

  it('reads one message when the caller stops at the first', async () => {
    const { source, batches } = countingSource(refs);
    for await (const r of readInBatches(source, refs, 10, 1)) {
      expect(r.ok).toBe(false);
      break;
    }
    expect(batches).toEqual([['m0']]);
  });
});

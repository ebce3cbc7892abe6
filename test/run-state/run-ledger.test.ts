import { StateStore } from '@strands-agents/sdk';
import { describe, expect, it } from '@jest/globals';
import { EMPTY_COUNTS } from '../../shared/records/runs.ts';
import { RunLedger, type DeferredItem } from '../../shared/run-state/run-ledger.ts';

const ITEM: DeferredItem = {
  item_id: 'i1',
  ref: 'cur/1',
  sender: 'a@example.com',
  subject: 'Invoice',
  snippet: 'Please pay',
  suggested_action: 'archive',
  confidence: 0.4,
  reasoning: 'unsure',
  reason: 'low_confidence',
};

describe('the run ledger is the one API over a run state', () => {
  it('reads back, through a snapshot of the state, what the run wrote: counts, cursor, deferred items', () => {
    const state = new StateStore();
    const ledger = RunLedger.of(state);
    expect(ledger.counts()).toEqual(EMPTY_COUNTS);
    expect(ledger.cursor()).toBe(0);

    ledger.bump(['acted', 'confident']);
    ledger.setCursor(3);
    ledger.defer(ITEM);
    ledger.persistDeferred();

    // What a resumed process reads: the state as the snapshot carried it.
    const resumed = RunLedger.of(new StateStore(JSON.parse(JSON.stringify(state.getAll()))));
    expect(resumed.counts()).toMatchObject({ acted: 1, confident: 1, deferred: 1 });
    expect(resumed.cursor()).toBe(3);
    expect(resumed.deferred()).toEqual([ITEM]);
    expect(resumed.isDeferred('i1')).toBe(true);
  });

  it('reads counts saved before a count existed as 0', () => {
    const state = new StateStore({ counts: { acted: 2 } });
    expect(RunLedger.of(state).counts()).toEqual({ ...EMPTY_COUNTS, acted: 2 });
  });

  it('says so when used before it is bound to a state', () => {
    expect(() => new RunLedger().counts()).toThrow('before the executor was built');
  });
});

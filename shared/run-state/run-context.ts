import type { StateStore } from '@strands-agents/sdk';
import type { Rule } from '../records/rule.ts';
import type { GatePolicy } from '../gate/verdict.ts';
import type { RunCounts } from '../records/runs.ts';
import { EMPTY_COUNTS } from '../records/runs.ts';
import type { ItemSource, SourceItem } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import type { FeedEvent } from '../events/feed.ts';
import type { Choice } from '../actions/carry-out.ts';
import type { RunLedger } from './run-ledger.ts';

/** The agent that runs the batch; specialists are named in the workflow. */
export const EXECUTOR = 'executor';

/** An item the gate set aside; kept in the executor's appState so it survives a pause. */
export interface DeferredItem {
  item_id: string;
  ref: string;
  sender: string;
  subject: string;
  /** The start of the text, for the person's question and for what the learner may key on. */
  snippet: string;
  suggested_action: string;
  confidence: number;
  reasoning: string;
  reason: string;
  /** The specialist that asked; absent when the executor did (and in states saved before specialists). */
  agent?: string;
}

/** What the person answered for one deferred item, handed back through the interrupt. */
export interface DecisionAnswer {
  decision_id: string;
  item_id: string;
  action: string;
  note: string | null;
  by: 'human' | 'expired' | 'unreachable';
  reason?: string | null;
}

/**
 * Everything one run's agents need. The run context holds the text of the items;
 * the model only ever sees ids and compact views.
 */
export interface RunContext {
  store: Store;
  runId: string;
  workflow: Workflow;
  source: ItemSource;
  policy: GatePolicy;
  rules: Rule[];
  pageSize: number;
  /** Items read this process, by id. */
  items: Map<string, SourceItem>;
  /** Item ids waiting on a person in another run of this workflow: never fetched again. */
  held: Set<string>;
  /** The gate's verdict for each submit_action call it let through, by toolUseId. */
  verdicts: Map<string, Choice>;
  /** What every agent of the run shares: the items set aside, who owns each item, the counts. */
  ledger: RunLedger;
  /** Source refs, listed once per process. */
  refs: string[] | null;
  emit(kind: FeedEvent['kind'], text: string, data?: Record<string, unknown>): void;
}

const COUNTS = 'counts';
const DEFERRED = 'deferred';
const CURSOR = 'cursor';

/** Run state that must survive a pause lives in the executor's appState (it is snapshotted). */
export const runState = {
  counts(state: StateStore): RunCounts {
    return { ...EMPTY_COUNTS, ...((state.get(COUNTS) as Partial<RunCounts> | undefined) ?? {}) };
  },
  bump(state: StateStore, keys: (keyof RunCounts)[]): void {
    const counts = runState.counts(state);
    for (const key of keys) counts[key] += 1;
    state.set(COUNTS, counts);
  },
  deferred(state: StateStore): DeferredItem[] {
    return (state.get(DEFERRED) as DeferredItem[] | undefined) ?? [];
  },
  setDeferred(state: StateStore, items: readonly DeferredItem[]): void {
    state.set(DEFERRED, items);
  },
  cursor(state: StateStore): number {
    return (state.get(CURSOR) as number | undefined) ?? 0;
  },
  setCursor(state: StateStore, cursor: number): void {
    state.set(CURSOR, cursor);
  },
};

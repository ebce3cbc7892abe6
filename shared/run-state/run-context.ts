import type { Rule } from '../records/rule.ts';
import type { GatePolicy } from '../gate/verdict.ts';
import type { ItemSource, SourceItem } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import type { IncludedSkill } from '../skills/skills.ts';
import type { FeedEvent } from '../events/feed.ts';
import type { Choice, Decided } from '../actions/carry-out.ts';
import type { SourceUnavailableError } from '../sources/source.ts';
import type { RunLedger } from './run-ledger.ts';
import type { Composer } from '../actions/compose.ts';

/**
 * Everything one run's agents need. The run context holds the text of the items;
 * the model only ever sees ids and compact views.
 */
export interface RunContext {
  store: Store;
  runId: string;
  workflow: Workflow;
  /** The text of each skill the workflow and its specialists include, by name (see workflows/resolve.ts). */
  skills?: ReadonlyMap<string, IncludedSkill>;
  source: ItemSource;
  policy: GatePolicy;
  /** The live rules the gate may apply: every one, or (keyed) those read so far for the items fetched. */
  rules: Rule[];
  /**
   * Present when the rules are indexed by what they match (memory/rule-keys.ts): each page of
   * items reads the keys of its senders and domains not read yet, and adds their rules to `rules`.
   */
  ruleKeys?: { read: Set<string> };
  pageSize: number;
  /** Items read this process, by id. */
  items: Map<string, SourceItem>;
  /** Item ids waiting on a person in another run of this workflow: never fetched again. */
  held: Set<string>;
  /** The gate's verdict for each submit_action call it let through, by toolUseId. */
  verdicts: Map<string, Choice>;
  /** What every agent of the run shares: the items set aside, who owns each item, the counts. */
  ledger: RunLedger;
  /** Cleared choices waiting to be carried out together (see gate/act-queue.ts). */
  decided: Decided[];
  /** Items set aside, held for this run in the store with the next batch of claims (an outcome `held`). */
  holds: SourceItem[];
  /** The source went away while acting or reading items: every later tool call of the run, and its end, fail with this. */
  sourceLost: SourceUnavailableError | null;
  /** Source refs, listed once per process. */
  refs: string[] | null;
  /**
   * Answers are carried out as they arrive in another process (AWS: the resume function's
   * `handoff.carry`), so a fresh claim still `acting` may be alive: the resume waits for it.
   */
  answersCarriedElsewhere?: boolean;
  /** Writes an action's words for an item with the run's model (a reply, a ticket); absent: without a model. */
  compose?: Composer;
  emit(kind: FeedEvent['kind'], text: string, data?: Record<string, unknown>): void;
}

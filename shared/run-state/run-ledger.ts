import type { StateStore } from '@strands-agents/sdk';
import { z } from 'zod';
import { EMPTY_COUNTS, RunCountsSchema, type RunCounts } from '../records/runs.ts';
import { WordsSchema } from '../actions/words.ts';
import type { RuleHits } from '../memory/rule-fires.ts';

/** The agent that runs the batch; specialists are named in the workflow. */
export const EXECUTOR = 'executor';

/** An item the gate set aside; kept in the executor's appState so it survives a pause. */
export const DeferredItemSchema = z.object({
  item_id: z.string(),
  ref: z.string(),
  sender: z.string(),
  subject: z.string(),
  /** The start of the text, for the person's question and for what the learner may key on. */
  snippet: z.string(),
  suggested_action: z.string(),
  confidence: z.number(),
  reasoning: z.string(),
  reason: z.string(),
  /** The specialist that asked; absent when the executor did (and in states saved before specialists). */
  agent: z.string().optional(),
  /** The words written for the actions the person may choose that carry words (a reply, a ticket). */
  drafts: z.array(WordsSchema).optional(),
});
export type DeferredItem = z.infer<typeof DeferredItemSchema>;

/** What the person answered for one deferred item, handed back through the interrupt. */
export const DecisionAnswerSchema = z.object({
  decision_id: z.string(),
  item_id: z.string(),
  action: z.string(),
  note: z.string().nullable(),
  by: z.enum(['human', 'expired', 'unreachable']),
  reason: z.string().nullable().default(null),
  /** The person's own words for the chosen action (null: as drafted). */
  body: z.string().nullable().default(null),
  title: z.string().nullable().default(null),
});
export type DecisionAnswer = z.infer<typeof DecisionAnswerSchema>;

const COUNTS = 'counts';
const DEFERRED = 'deferred';
const CURSOR = 'cursor';
const RULE_HITS = 'rule_hits';

// Made once: a zod schema costs more to build than to parse these with.
const SavedCountsSchema = z.record(z.string(), z.number());
const CursorSchema = z.number().int();
const RuleHitsSchema = z.record(z.string(), z.object({ n: z.number().int(), last: z.string() }));
const DeferredItemsSchema = z.array(DeferredItemSchema);

/**
 * The run state every agent of a run shares (the executor and its specialists): the
 * items set aside for the person, which agent owns each handed-off item, the counts and
 * how far the executor read the source. This class is the only reader and writer of it.
 *
 * It is persisted in the executor's appState, which the graph snapshots at a pause. The
 * appState deep-copies on every get and set, so the deferred list is kept here and
 * appended in place, and written to the appState once, just before the pause: a pass of
 * n items costs O(n), not a copy of the whole list per item. The counts (a few numbers)
 * are written through on every change, so whoever reads the appState sees them.
 */
export class RunLedger {
  private state: StateStore | undefined;
  private items: DeferredItem[] | undefined;
  /** The counts as last read or written here (this ledger is their one writer): parsed once. */
  private tally: RunCounts | undefined;
  private readonly ids = new Set<string>();
  private readonly owners = new Map<string, string>();
  /** Told each change of the counts (the run's progress writer). */
  private watcher: ((counts: RunCounts) => void) | undefined;

  /** A ledger over a run's persisted state, e.g. the executor's appState read back at the end of a step. */
  static of(state: StateStore): RunLedger {
    const ledger = new RunLedger();
    ledger.persistIn(state);
    return ledger;
  }

  /** Binds the ledger to the executor's appState: the run's persisted state. */
  persistIn(state: StateStore): void {
    this.state = state;
    this.tally = undefined;
  }

  /** The items set aside so far; in a resumed process, the ones the snapshot carried. */
  deferred(): readonly DeferredItem[] {
    return this.loaded();
  }

  isDeferred(itemId: string): boolean {
    this.loaded();
    return this.ids.has(itemId);
  }

  /** Sets an item aside for the person (the tool body does nothing to it). */
  defer(entry: DeferredItem): void {
    this.loaded().push(entry);
    this.ids.add(entry.item_id);
    this.bump(['deferred']);
  }

  /** Takes back a set-aside item the run could not hold (another run has it): it is not asked. */
  undefer(itemId: string): void {
    const items = this.loaded();
    const at = items.findIndex((d) => d.item_id === itemId);
    if (at < 0) return;
    items.splice(at, 1);
    this.ids.delete(itemId);
    const counts = this.counts();
    counts.deferred = Math.max(0, counts.deferred - 1);
    this.writeCounts(counts);
  }

  /** Writes the deferred list into the persisted state; the gate calls it right before the pause. */
  persistDeferred(): void {
    this.persisted().set(DEFERRED, this.loaded());
  }

  /** Every deferred item was carried out (or skipped): nothing is waiting any more. */
  clearDeferred(): void {
    this.items = [];
    this.ids.clear();
    this.persisted().set(DEFERRED, []);
  }

  /** Records that `agent` now owns the item: from here on only that agent may act on it. */
  handOver(itemId: string, agent: string): void {
    this.owners.set(itemId, agent);
  }

  /** The agent that owns the item: the specialist it was handed to, else the executor. */
  ownerOf(itemId: string): string {
    return this.owners.get(itemId) ?? EXECUTOR;
  }

  /** The run's counts so far (a state saved before a count existed reads it as 0). */
  counts(): RunCounts {
    if (!this.tally) {
      const saved = SavedCountsSchema.parse(this.persisted().get(COUNTS) ?? {});
      this.tally = RunCountsSchema.parse({ ...EMPTY_COUNTS, ...saved });
    }
    return { ...this.tally };
  }

  /** Adds one to each of the counts named. */
  bump(keys: (keyof RunCounts)[]): void {
    if (keys.length === 0) return;
    const counts = this.counts();
    for (const key of keys) counts[key] += 1;
    this.writeCounts(counts);
  }

  /** Tells `watcher` each change of the counts from now on (one watcher: the run's progress). */
  watchCounts(watcher: (counts: RunCounts) => void): void {
    this.watcher = watcher;
  }

  private writeCounts(counts: RunCounts): void {
    this.persisted().set(COUNTS, counts);
    this.tally = { ...counts };
    this.watcher?.({ ...counts });
  }

  /**
   * The rules that decided items in this run so far: how many each, and when last (folded
   * into the rules' records when a step ends, memory/rule-fires.ts). A few entries, written
   * through like the counts.
   */
  ruleHits(): RuleHits {
    return RuleHitsSchema.parse(this.persisted().get(RULE_HITS) ?? {});
  }

  /** Notes that rule `ruleId` decided an item at `at`. */
  ruleFired(ruleId: string, at: string): void {
    const hits = this.ruleHits();
    hits[ruleId] = { n: (hits[ruleId]?.n ?? 0) + 1, last: at };
    this.persisted().set(RULE_HITS, hits);
  }

  /** How many of the source's refs the executor has read. */
  cursor(): number {
    return CursorSchema.parse(this.persisted().get(CURSOR) ?? 0);
  }

  setCursor(cursor: number): void {
    this.persisted().set(CURSOR, cursor);
  }

  private loaded(): DeferredItem[] {
    if (!this.items) {
      this.items = DeferredItemsSchema.parse(this.persisted().get(DEFERRED) ?? []);
      for (const item of this.items) this.ids.add(item.item_id);
    }
    return this.items;
  }

  private persisted(): StateStore {
    if (!this.state) throw new Error('the run ledger is used before the executor was built');
    return this.state;
  }
}

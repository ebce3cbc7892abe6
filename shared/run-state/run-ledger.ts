import type { StateStore } from '@strands-agents/sdk';
import type { RunCounts } from '../records/runs.ts';
import { EXECUTOR, runState, type DeferredItem } from './run-context.ts';

/**
 * The run state every agent of a run shares (the executor and its specialists): the
 * items set aside for the person, which agent owns each handed-off item, and the counts.
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
  private readonly ids = new Set<string>();
  private readonly owners = new Map<string, string>();

  /** Binds the ledger to the executor's appState: the run's persisted state. */
  persistIn(state: StateStore): void {
    this.state = state;
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

  /** Writes the deferred list into the persisted state; the gate calls it right before the pause. */
  persistDeferred(): void {
    runState.setDeferred(this.persisted(), this.loaded());
  }

  /** Every deferred item was carried out (or skipped): nothing is waiting any more. */
  clearDeferred(): void {
    this.items = [];
    this.ids.clear();
    runState.setDeferred(this.persisted(), []);
  }

  /** Records that `agent` now owns the item: from here on only that agent may act on it. */
  handOver(itemId: string, agent: string): void {
    this.owners.set(itemId, agent);
  }

  /** The agent that owns the item: the specialist it was handed to, else the executor. */
  ownerOf(itemId: string): string {
    return this.owners.get(itemId) ?? EXECUTOR;
  }

  counts(): RunCounts {
    return runState.counts(this.persisted());
  }

  bump(keys: (keyof RunCounts)[]): void {
    if (keys.length > 0) runState.bump(this.persisted(), keys);
  }

  private loaded(): DeferredItem[] {
    if (!this.items) {
      this.items = runState.deferred(this.persisted());
      for (const item of this.items) this.ids.add(item.item_id);
    }
    return this.items;
  }

  private persisted(): StateStore {
    if (!this.state) throw new Error('the run ledger is used before the executor was built');
    return this.state;
  }
}

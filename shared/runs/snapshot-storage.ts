import type { Snapshot, SnapshotManifest, SnapshotStorage } from '@strands-agents/sdk';
import { HandoffError } from '../errors/index.ts';
import type { Store } from '../store/store.ts';
import { getRecord } from '../store/records.ts';
import { readGraph } from './graph-state.ts';
import { RunSchema } from '../records/runs.ts';

/**
 * Strands' snapshot storage, backed by the run record: the paused graph lives on the
 * run itself (there is no parallel pause state). A save is kept here, not written: the
 * graph is saved when an invocation stops, and the lifecycle write that follows (a pause,
 * a hand-over to the next step) carries it, so saving costs no write of its own. A run
 * that finishes or fails clears its graph; a process that dies before that write leaves
 * the graph as the last lifecycle write saved it, where a retried step starts again.
 */
export class RunSnapshotStorage implements SnapshotStorage {
  private latest: Snapshot | null = null;

  constructor(
    private readonly store: Store,
    private readonly runId: string,
  ) {}

  /** The graph saved since the run's last lifecycle write, if any (null: the record's stands). */
  get pending(): Snapshot | null {
    return this.latest;
  }

  async saveSnapshot(params: { snapshot: Snapshot }): Promise<void> {
    this.latest = params.snapshot;
  }

  async loadSnapshot(): Promise<Snapshot | null> {
    if (this.latest) return this.latest;
    const run = await getRecord(this.store, 'runs', RunSchema, this.runId);
    if (!run) throw new HandoffError(`run ${this.runId} vanished while loading its state`);
    return readGraph(run);
  }

  async listSnapshotIds(): Promise<string[]> {
    return [];
  }

  async deleteSession(): Promise<void> {}

  async loadManifest(): Promise<SnapshotManifest> {
    return { schemaVersion: '1.0', updatedAt: new Date().toISOString() };
  }

  async saveManifest(): Promise<void> {}
}

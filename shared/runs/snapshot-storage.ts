import type { Snapshot, SnapshotManifest, SnapshotStorage } from '@strands-agents/sdk';
import { HandoffError } from '../errors/index.ts';
import type { Store } from '../store/store.ts';
import { getRecord } from '../store/records.ts';
import { readGraph } from './graph-state.ts';
import { saveGraph } from './lifecycle.ts';
import { RunSchema } from '../records/runs.ts';

/**
 * Strands' snapshot storage, backed by the run record: the paused graph lives on the
 * run itself (there is no parallel pause state), written with a conditional update.
 */
export class RunSnapshotStorage implements SnapshotStorage {
  constructor(
    private readonly store: Store,
    private readonly runId: string,
  ) {}

  async saveSnapshot(params: { snapshot: Snapshot }): Promise<void> {
    await saveGraph(this.store, this.runId, params.snapshot);
  }

  async loadSnapshot(): Promise<Snapshot | null> {
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

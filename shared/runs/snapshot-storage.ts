import type { Snapshot, SnapshotManifest, SnapshotStorage } from '@strands-agents/sdk';
import { HandoffError } from '../errors/index.ts';
import type { Store } from '../store/store.ts';
import { getRecord } from '../store/records.ts';
import { RunSchema } from '../records/runs.ts';

/** The version of the persisted graph state this build writes, and those it can read. */
export const GRAPH_SCHEMA_VERSION = 1;
export const READABLE_GRAPH_VERSIONS: readonly number[] = [1];

/** A paused run whose persisted state this build cannot read. */
export class UnreadableSnapshotError extends HandoffError {}

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
    const run = await this.run();
    await this.store.update(
      'runs',
      { ...run, snapshot: { schemaVersion: GRAPH_SCHEMA_VERSION, graph: params.snapshot } },
      run.version,
    );
  }

  async loadSnapshot(): Promise<Snapshot | null> {
    const { snapshot } = await this.run();
    if (!snapshot) return null;
    if (!READABLE_GRAPH_VERSIONS.includes(snapshot.schemaVersion)) {
      throw new UnreadableSnapshotError(
        `run ${this.runId} was paused by a build that wrote graph state v${snapshot.schemaVersion}; this build reads v${READABLE_GRAPH_VERSIONS.join(', v')}`,
      );
    }
    return snapshot.graph as unknown as Snapshot;
  }

  async listSnapshotIds(): Promise<string[]> {
    return [];
  }

  async deleteSession(): Promise<void> {}

  async loadManifest(): Promise<SnapshotManifest> {
    return { schemaVersion: '1.0', updatedAt: new Date().toISOString() };
  }

  async saveManifest(): Promise<void> {}

  private async run() {
    const run = await getRecord(this.store, 'runs', RunSchema, this.runId);
    if (!run) throw new HandoffError(`run ${this.runId} vanished while saving its state`);
    return run;
  }
}

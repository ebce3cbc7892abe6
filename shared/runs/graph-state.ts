import type { Snapshot } from '@strands-agents/sdk';
import { z } from 'zod';
import { HandoffError } from '../errors/index.ts';
import type { Run } from '../records/runs.ts';

/** The version of the persisted graph state this build writes, and those it can read. */
export const GRAPH_SCHEMA_VERSION = 1;
export const READABLE_GRAPH_VERSIONS: readonly number[] = [1];

/** A paused run whose persisted state this build cannot read. */
export class UnreadableSnapshotError extends HandoffError {}

/** Strands' snapshot of the paused graph, as version 1 stores it on the run record. */
export const GraphSnapshotSchema = z.object({
  scope: z.enum(['agent', 'multiAgent']),
  schemaVersion: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.json()),
  appData: z.record(z.string(), z.json()),
});

/**
 * Reads the paused graph back from a run record: null when nothing is saved; a version
 * this build cannot read, or a graph that does not fit the schema, is refused with one line.
 */
export function readGraph(run: Pick<Run, 'id' | 'snapshot'>): Snapshot | null {
  const { snapshot } = run;
  if (!snapshot) return null;
  if (!READABLE_GRAPH_VERSIONS.includes(snapshot.schemaVersion)) {
    throw new UnreadableSnapshotError(
      `run ${run.id} was paused by a build that wrote graph state v${snapshot.schemaVersion}; this build reads v${READABLE_GRAPH_VERSIONS.join(', v')}`,
    );
  }
  const parsed = GraphSnapshotSchema.safeParse(snapshot.graph);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UnreadableSnapshotError(
      `run ${run.id}: its saved graph state v${snapshot.schemaVersion} is not valid (${issue?.path.join('.') || 'graph'}: ${issue?.message})`,
    );
  }
  return parsed.data;
}

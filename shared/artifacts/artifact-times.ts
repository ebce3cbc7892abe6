/**
 * Artifacts in the by-time index (newest first: the Artifacts list of a whole workspace).
 * Those written by an earlier build lack its keys until `handoff store migrate` writes them
 * again (its artifact-times step, with its own marker); a workspace this build wrote is marked
 * on its first list (runs/time-backfill.ts).
 */
import { backfillTimes, markerOf, unlessIndexed, type TimeBackfill } from '../runs/time-backfill.ts';
import type { JsonRecord, Store } from '../store/store.ts';

const ARTIFACT_TIMES: TimeBackfill = { collection: 'artifacts', step: 'artifact-times' };

/** The marker that says every artifact of the workspace is in the by-time index (in `settings`). */
export const ARTIFACT_TIMES_MIGRATED_ID = markerOf(ARTIFACT_TIMES);

/** Whether every artifact is in the by-time index (see `unlessIndexed`). */
export async function artifactTimesIndexed(store: Store): Promise<boolean> {
  return (await artifactsUnlessIndexed(store)) === null;
}

/** Null when every artifact is in the by-time index (`artifactTimesIndexed`), else every artifact, as listed. */
export async function artifactsUnlessIndexed(store: Store): Promise<JsonRecord[] | null> {
  return unlessIndexed(store, ARTIFACT_TIMES);
}

/**
 * The artifact-times step of `handoff store migrate` (`backfillTimes`). Returns how many
 * were written (0 when already done).
 */
export async function migrateArtifactTimes(
  store: Store,
): Promise<{ already_done: boolean; artifacts: number }> {
  const done = await backfillTimes(store, ARTIFACT_TIMES);
  return { already_done: done.already_done, artifacts: done.written };
}

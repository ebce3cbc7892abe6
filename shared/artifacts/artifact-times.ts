/**
 * Artifacts in the by-time index (newest first: the Artifacts list of a whole workspace).
 * Those written by an earlier build lack its keys until `handoff store migrate` writes them
 * again (its artifact-times step, with its own marker); a workspace this build wrote is marked
 * on its first list.
 */
import { crashPoint } from '../config/processes.ts';
import { markStepDone } from '../settings/settings.ts';
import { commitAll, listNewest, type JsonRecord, type Store, type Write } from '../store/store.ts';

/** The marker that says every artifact of the workspace is in the by-time index (in `settings`). */
export const ARTIFACT_TIMES_MIGRATED_ID = 'migration:artifact-times';
const BATCH = 100;

/**
 * Whether every artifact is in the by-time index: the marker; else, once, every artifact
 * listed and the index read as far: when it holds them all (a workspace this build wrote) the
 * marker is written, and later pages read the index only.
 */
export async function artifactTimesIndexed(store: Store): Promise<boolean> {
  return (await artifactsUnlessIndexed(store)) === null;
}

/** Null when every artifact is in the by-time index (`artifactTimesIndexed`), else every artifact, as listed. */
export async function artifactsUnlessIndexed(store: Store): Promise<JsonRecord[] | null> {
  if ((await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)) !== undefined) return null;
  const listed = await store.list('artifacts');
  const indexed = await listNewest(store, 'artifacts', { limit: Math.max(listed.length, 1) });
  if (indexed.items.length !== listed.length || indexed.next_cursor !== null) return listed;
  await markStepDone(store, ARTIFACT_TIMES_MIGRATED_ID); // kept if another process marked it first
  return null;
}

/**
 * The artifact-times step of `handoff store migrate`: writes every artifact again (a put of
 * the same record: idempotent), so the by-time index holds it, then the marker, last; killed
 * in the middle it is simply run again. Returns how many were written (0 when already done).
 */
export async function migrateArtifactTimes(
  store: Store,
): Promise<{ already_done: boolean; artifacts: number }> {
  if ((await store.get('settings', ARTIFACT_TIMES_MIGRATED_ID)) !== undefined)
    return { already_done: true, artifacts: 0 };
  const all = await store.list('artifacts');
  for (let i = 0; i < all.length; i += BATCH) {
    const writes: Write[] = all
      .slice(i, i + BATCH)
      .map((record) => ({ kind: 'put', collection: 'artifacts', record }));
    for (const result of await commitAll(store, writes)) if (!result.ok) throw result.error;
    crashPoint('migrate:artifact-times-batch');
  }
  await markStepDone(store, ARTIFACT_TIMES_MIGRATED_ID);
  return { already_done: false, artifacts: all.length };
}

/**
 * The JSON-file store keeps a record whose id carries its parent's key (`aud_<run key>_…`,
 * `dec_<run key>_…`) or its run's id (an artifact's `<run id>.<kind>…`) in a folder per run key,
 * `<collection>/<run key>/`, so "this run's audit" or "this run's artifacts" lists about a
 * hundred names at most, not the workspace's history. Other records stay in the collection's
 * folder. A collection folder made by this build holds `.bucketed`: no keyed record of it is in
 * the flat folder. One from before (decisions with keyed ids were kept flat) is read in both
 * places until `relayout` (run by `handoff store migrate`) has moved them.
 */
import { runKey } from './ids.ts';
import type { Collection } from './store.ts';

/** Collections whose keyed ids get a folder per parent key. */
export const BUCKETED: ReadonlySet<Collection> = new Set<Collection>([
  'audit',
  'decisions',
  'artifacts',
  'proposals',
]);

/** A bucket folder's name: the parent key. */
export const BUCKET_FOLDER = /^[0-9a-f]{8}$/;

/** The file in a collection folder that says none of its keyed records is flat. */
export const BUCKETED_MARK = '.bucketed';

// A proposal's key is its (workflow, domain)'s: runs/proposal-keys.ts.
const KEYED_ID = /^(?:aud|dec|prop)_([0-9a-f]{8})_/;
/** An artifact's id: its run's id, a dot, then its kind (artifacts.ts's artifactId). */
const ARTIFACT_ID = /^(run_[^.]+)\./;

/** The folder a record of `collection` with this id (or ids with this prefix) lives in under the collection's; null: the collection's own. */
export function bucketOf(collection: Collection, id: string): string | null {
  if (!BUCKETED.has(collection)) return null;
  if (collection === 'artifacts') {
    const run = ARTIFACT_ID.exec(id)?.[1];
    return run === undefined ? null : runKey(run);
  }
  return KEYED_ID.exec(id)?.[1] ?? null;
}

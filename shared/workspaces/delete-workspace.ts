/**
 * Deleting a workspace with what it holds, for a person who confirmed it by typing its
 * name: what would be lost is counted first (the confirm page lists it), then every record
 * of its content goes, then the workspace itself (registry.remove: keys revoked, id kept).
 */
import type { Store } from '../store/store.ts';
import { CONTENT_COLLECTIONS, type Workspace, type WorkspaceRegistry } from './registry.ts';

/** How many records of each kind a workspace holds (only kinds it has). */
export async function workspaceContents(store: Store): Promise<{ collection: string; count: number }[]> {
  const counts = await Promise.all(
    CONTENT_COLLECTIONS.map(async (collection) => ({
      collection,
      count: (await store.list(collection)).length,
    })),
  );
  return counts.filter((c) => c.count > 0);
}

/** Deletes the workspace `name` and everything in `store` (its own); refused for `default`. */
export async function deleteWorkspaceWithContents(
  registry: WorkspaceRegistry,
  name: string,
  store: Store,
): Promise<Workspace> {
  const workspace = await registry.resolve(name);
  if (workspace.id !== 'default')
    for (const collection of CONTENT_COLLECTIONS)
      for (const record of await store.list(collection)) await store.delete(collection, record.id);
  return registry.remove(name, store); // refuses default with one line
}

/**
 * The artifacts list, a page at a time, read by key: one run's by the run's id prefix (its
 * size is the run's, never the history's), the workspace's newest first from the by-time
 * index (by `created_at`), reading what the page shows plus one. Artifacts written by an
 * earlier build are not in that index until `handoff store migrate` (its artifact-times
 * step) writes them again; until then the list reads them all, as it did.
 */
import { parseRecord } from '../store/records.ts';
import { listByIdPrefix, listNewest, newestOf, type Store } from '../store/store.ts';
import { atOf, cursorOf, inMemory, type ListPage, type PageAsk } from '../runs/list-pages.ts';
import { artifactsUnlessIndexed } from './artifact-times.ts';

export { DEFAULT_PAGE, MAX_PAGE } from '../runs/list-pages.ts';
import { ArtifactSchema, type Artifact } from './artifacts.ts';

/**
 * A page of artifacts, newest first: one run's (`run`: the caller checks the run exists), or
 * the workspace's. A cursor from another list is refused (InvalidCursorError).
 */
export async function pageOfArtifacts(
  store: Store,
  ask: PageAsk & { run?: string | undefined },
): Promise<ListPage<Artifact>> {
  const newestFirst = (a: Artifact) => `${a.created_at}#${a.id}`;
  if (ask.run !== undefined) {
    const at = atOf(['artifacts-of-run'], ask.cursor);
    const ofRun = (await listByIdPrefix(store, 'artifacts', `${ask.run}.`)).map(asArtifact);
    return inMemory('artifacts-of-run', ofRun, newestFirst, 'newest', ask.limit, at);
  }
  const at = atOf(['artifacts', 'artifacts-listed'], ask.cursor);
  const listed =
    at?.list === 'artifacts-listed' ? await store.list('artifacts') : await artifactsUnlessIndexed(store);
  if (listed !== null) {
    // Written before the index and not migrated yet: every artifact read, as before.
    const page = newestOf(listed, 'artifacts', {
      limit: ask.limit,
      cursor: at?.at ?? null,
    });
    return { items: page.items.map(asArtifact), next_cursor: cursorOf('artifacts-listed', page.next_cursor) };
  }
  const page = await listNewest(store, 'artifacts', { limit: ask.limit, cursor: at?.at ?? null });
  return { items: page.items.map(asArtifact), next_cursor: cursorOf('artifacts', page.next_cursor) };
}

const asArtifact = (r: Record<string, unknown> & { id: string }): Artifact =>
  parseRecord(ArtifactSchema, 'artifacts', r);

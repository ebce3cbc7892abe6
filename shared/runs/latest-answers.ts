import { DecisionSchema, type Decision } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import { listNewest, type Store } from '../store/store.ts';

/**
 * The latest settled questions (answered or expired), newest first: one read of the store's
 * time index that reads `limit` plus one, whatever the workspace's history.
 */
export async function latestSettled(store: Store, limit: number): Promise<Decision[]> {
  const page = await listNewest(store, 'decisions', { limit });
  return page.items.map((r) => parseRecord(DecisionSchema, 'decisions', r));
}

import { DecisionSchema, type Decision } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import { listNewest, type Store } from '../store/store.ts';

/** Settled questions read for the answers a person gave (the newest, from the by-time index). */
export const RECENT_SETTLED = 200;

/**
 * The decisions a person answered (not those that expired or found nobody), oldest first,
 * among the newest RECENT_SETTLED settled: one page of the by-time index, never every decision.
 */
export async function answeredByPerson(store: Store): Promise<Decision[]> {
  const page = await listNewest(store, 'decisions', { limit: RECENT_SETTLED });
  return page.items
    .map((r) => parseRecord(DecisionSchema, 'decisions', r))
    .filter((d) => d.status === 'answered' && d.answer?.by === 'human')
    .reverse();
}

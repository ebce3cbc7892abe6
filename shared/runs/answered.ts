import type { Decision } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import { listDecisions } from './decision-repository.ts';

/** The decisions a person answered (not those that expired or found nobody), oldest first. */
export async function answeredByPerson(store: Store): Promise<Decision[]> {
  return (await listDecisions(store)).filter((d) => d.status === 'answered' && d.answer?.by === 'human');
}

import { NotFoundError } from '../errors/index.ts';
import { getRecord, getRecords, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { DecisionSchema, InterruptSchema, type Decision, type InterruptRecord } from '../records/runs.ts';

export async function getDecision(store: Store, id: string): Promise<Decision> {
  const decision = await getRecord(store, 'decisions', DecisionSchema, id);
  if (!decision) throw new NotFoundError(`no decision "${id}": see \`handoff pending\``);
  return decision;
}

export async function getInterrupt(store: Store, id: string): Promise<InterruptRecord> {
  const interrupt = await getRecord(store, 'interrupts', InterruptSchema, id);
  if (!interrupt) throw new NotFoundError(`no interrupt "${id}"`);
  return interrupt;
}

export async function listDecisions(store: Store): Promise<Decision[]> {
  return (await listRecords(store, 'decisions', DecisionSchema)).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
}

/** Decisions waiting on a person, oldest first (read through the store's status index). */
export async function listPending(store: Store): Promise<Decision[]> {
  return (await store.listWithStatus('decisions', 'pending'))
    .map((r) => DecisionSchema.parse(r))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** The interrupt's decisions, in its order, read in one request where the store can. */
export async function decisionsOf(store: Store, interrupt: InterruptRecord): Promise<Decision[]> {
  const decisions = await getRecords(store, 'decisions', DecisionSchema, interrupt.decision_ids);
  return decisions.map((decision, i) => {
    if (!decision)
      throw new NotFoundError(`no decision "${interrupt.decision_ids[i]}": see \`handoff pending\``);
    return decision;
  });
}

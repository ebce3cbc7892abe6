import { NotFoundError } from '../errors/index.ts';
import { getRecord, listRecords } from '../store/records.ts';
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

export async function decisionsOf(store: Store, interrupt: InterruptRecord): Promise<Decision[]> {
  return Promise.all(interrupt.decision_ids.map((id) => getDecision(store, id)));
}

/**
 * Whether any question of the interrupt still waits for its answer. Read from the last
 * question back, a few at a time, stopping at the first pending one: a person answering
 * in order is told "not yet" by one read, so answering n questions costs about n reads in
 * all, not n².
 */
export async function anyPending(store: Store, interrupt: InterruptRecord): Promise<boolean> {
  const ids = [...interrupt.decision_ids].reverse();
  for (let i = 0; i < ids.length; i += PENDING_PROBE) {
    const decisions = await Promise.all(ids.slice(i, i + PENDING_PROBE).map((id) => getDecision(store, id)));
    if (decisions.some((d) => d.status === 'pending')) return true;
  }
  return false;
}

const PENDING_PROBE = 4;

import { sourceKeyOf } from '../memory/source-key.ts';
import { NotFoundError } from '../errors/index.ts';
import { createHash } from 'node:crypto';
import { getRecord, getRecords, listRecords, parseRecord } from '../store/records.ts';
import {
  countWithStatus,
  listByIdPrefix,
  listStatusPage,
  type JsonRecord,
  type Store,
} from '../store/store.ts';
import {
  DecisionSchema,
  InterruptSchema,
  type Decision,
  type InterruptRecord,
  type Run,
} from '../records/runs.ts';
import type { Workflow } from '../workflows/schema.ts';

/**
 * The id of a run's question about one item, `dec_<run key>_<item key>`: stable (a retried
 * pause names the same question), short (it travels in links), and beginning with a key of
 * its run, so one keyed read finds a run's questions. Ids made before this scheme
 * (`dec_<hash>`) stay readable by id; `pendingOfRun` falls back to the status index for them.
 */
export function decisionIdFor(runId: string, itemId: string): string {
  return `${runDecisionPrefix(runId)}${digest(runId, itemId).slice(0, 12)}`;
}

/** What every id of a run's questions begins with (a run key may be shared: filter by `run_id`). */
export function runDecisionPrefix(runId: string): string {
  return `dec_${digest('run', runId).slice(0, 8)}_`;
}

/** What a decision keeps of its workflow for the decision page (`workflow_view`), so opening it needs no workflow read. */
export function workflowView(workflow: Workflow): NonNullable<Decision['workflow_view']> {
  return {
    name: workflow.name,
    confidence_threshold: workflow.confidence_threshold ?? null,
    source: workflow.source.type,
    source_key: sourceKeyOf(workflow),
  };
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

/**
 * The run's questions still waiting, oldest first. Questions asked under this id scheme are
 * one keyed read (DynamoDB: one Query on the sort key); a run asked before it is read from the
 * status index and filtered. `known`, one of the run's decision ids, says which scheme the run
 * used; without it the keyed read comes first and the index is read only when it finds none.
 * Where the status index is exact (JSON files), the run's markers in it are read: they name
 * only what waits.
 */
export async function pendingOfRun(store: Store, runId: string, known?: string): Promise<Decision[]> {
  const prefix = runDecisionPrefix(runId);
  const ofRun = (records: JsonRecord[]) =>
    records
      .map((r) => DecisionSchema.parse(r))
      .filter((d) => d.run_id === runId && d.status === 'pending')
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  if (known !== undefined && !known.startsWith(prefix))
    return ofRun(await store.listWithStatus('decisions', 'pending'));
  const keyed = ofRun(
    store.exactStatusIndex
      ? await store.listWithStatus('decisions', 'pending', prefix) // the run's markers only
      : await listByIdPrefix(store, 'decisions', prefix),
  );
  if (keyed.length > 0 || known !== undefined) return keyed;
  return ofRun(await store.listWithStatus('decisions', 'pending'));
}

/** The run key a `decisionIdFor` id begins with (its run's prefix); null for an older id. */
export function runKeyOf(decisionId: string): string | null {
  return /^(dec_[0-9a-f]{8}_)[0-9a-f]{12}$/.exec(decisionId)?.[1] ?? null;
}

/** A decision as read, with its run's other questions still waiting when they came with it. */
export interface DecisionRead {
  decision: Decision | undefined;
  /** The run's other questions still waiting, oldest first; null when not read. */
  waiting: Decision[] | null;
  /** The run's other questions no longer waiting (answered or expired: they never change again), as read with it. */
  decided: Decision[];
}

/**
 * A decision and its run's other questions still waiting, in one read where the store reads
 * by key prefix (DynamoDB: one strongly consistent Query on the run's key, which the id
 * carries). An older id, a store without keyed reads, or one whose status index is exact (the
 * JSON files: its one file, and what waits from the index when asked) reads the decision by id
 * alone (`waiting` null).
 */
export async function readDecisionAndRun(store: Store, id: string): Promise<DecisionRead> {
  const prefix = runKeyOf(id);
  if (prefix === null || !store.listByIdPrefix || store.exactStatusIndex)
    return { decision: await getRecord(store, 'decisions', DecisionSchema, id), waiting: null, decided: [] };
  const ofRun = (await store.listByIdPrefix('decisions', prefix)).map((r) =>
    parseRecord(DecisionSchema, 'decisions', r),
  );
  const decision = ofRun.find((d) => d.id === id);
  if (!decision) return { decision: undefined, waiting: null, decided: [] };
  const others = ofRun.filter((d) => d.id !== id && d.run_id === decision.run_id).sort(oldestFirst);
  return {
    decision,
    waiting: others.filter((d) => d.status === 'pending'),
    decided: others.filter((d) => d.status !== 'pending'),
  };
}

const oldestFirst = (a: Decision, b: Decision) =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

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

/**
 * A run's questions, oldest first, read by the run's key: one read by id prefix, and, for a
 * run migrated from before keys, its older questions by id (`legacy_decision_ids`). A run
 * from before keys that is not migrated yet is read from every decision, filtered.
 */
export async function decisionsOfRun(
  store: Store,
  run: Pick<Run, 'id' | 'keyed' | 'legacy_decision_ids'>,
): Promise<Decision[]> {
  if (!run.keyed) return (await listDecisions(store)).filter((d) => d.run_id === run.id);
  const [keyed, legacy] = await Promise.all([
    listByIdPrefix(store, 'decisions', runDecisionPrefix(run.id)),
    getRecords(store, 'decisions', DecisionSchema, run.legacy_decision_ids ?? []),
  ]);
  const byId = new Map<string, Decision>();
  for (const d of [...keyed.map((r) => parseRecord(DecisionSchema, 'decisions', r)), ...legacy])
    if (d && d.run_id === run.id) byId.set(d.id, d);
  return [...byId.values()].sort(oldestFirst);
}

/** Every decision of the workspace, oldest first: a full read, for a one-time gathering only. */
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

/**
 * How many questions wait in the workspace: the sidebar's badge and every "N waiting". Counted
 * from the status index without reading a question (DynamoDB: a COUNT Query; JSON files: the
 * index's markers). Use this, not `listPending(...).length`.
 */
export function waitingCount(store: Store): Promise<number> {
  return countWithStatus(store, 'decisions', 'pending');
}

/**
 * The first `limit` waiting questions in the status index's order (docs/lists.md): one keyed
 * page, for "the next question" without reading what waits behind it.
 */
export async function firstWaiting(store: Store, limit: number): Promise<Decision[]> {
  const page = await listStatusPage(store, 'decisions', 'pending', { limit });
  return page.items.map((r) => parseRecord(DecisionSchema, 'decisions', r));
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

/**
 * Whether any question of the interrupt still waits for its answer. The last few questions
 * are read first (one request where the store reads many at once), the rest only when
 * those are all answered: a person answering in order is told "not yet" by that one read,
 * so answering n questions costs about n reads in all, not n².
 */
export async function anyPending(store: Store, interrupt: InterruptRecord): Promise<boolean> {
  const ids = interrupt.decision_ids;
  const pendingAmong = async (some: readonly string[]) => {
    const found = await getRecords(store, 'decisions', DecisionSchema, some);
    return found.some((d, i) => {
      if (!d) throw new NotFoundError(`no decision "${some[i]}": see \`handoff pending\``);
      return d.status === 'pending';
    });
  };
  return (await pendingAmong(ids.slice(-PENDING_PROBE))) || pendingAmong(ids.slice(0, -PENDING_PROBE));
}

const PENDING_PROBE = 4;

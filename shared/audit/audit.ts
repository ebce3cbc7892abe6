import { getRecord, listRecords, parseRecord } from '../store/records.ts';
import { listByIdPrefix, type Store } from '../store/store.ts';
import { AuditEntrySchema, type AuditEntry } from '../records/audit.ts';
import { RunSchema, type Run } from '../records/runs.ts';
import { isKeyedAuditId, migratedAuditId, newAuditId, runAuditPrefix } from './audit-ids.ts';

export type AuditInput = Omit<
  AuditEntry,
  'id' | 'at' | 'rule_id' | 'detail' | 'reasoning' | 'note' | 'confidence' | 'agent' | 'handoff'
> &
  Partial<Pick<AuditEntry, 'rule_id' | 'detail' | 'reasoning' | 'note' | 'confidence'>> & {
    /** A stable id, so a retry or a recovery names the same entry; a new one when absent. */
    id?: string;
    agent?: string | undefined;
    handoff?: AuditEntry['handoff'];
  };

/** Appends one entry to the audit log (the record; the feed is only the window). */
export async function appendAudit(store: Store, input: AuditInput): Promise<AuditEntry> {
  const entry = auditEntryOf(input);
  await store.put('audit', entry);
  return entry;
}

/** The entry `input` makes, stamped now (for a caller that writes it in a `commit` of its own). */
export function auditEntryOf(input: AuditInput): AuditEntry {
  const { id, agent, handoff, ...rest } = input;
  return {
    rule_id: null,
    detail: null,
    reasoning: null,
    note: null,
    confidence: null,
    ...rest,
    ...(agent !== undefined ? { agent } : {}),
    ...(handoff !== undefined ? { handoff } : {}),
    id: id ?? newAuditId(rest.run_id),
    at: new Date().toISOString(),
  };
}

/** The entry `id`, or undefined when it was never written. */
export function getAuditEntry(store: Store, id: string): Promise<AuditEntry | undefined> {
  return getRecord(store, 'audit', AuditEntrySchema, id);
}

/**
 * The audit log, oldest first, optionally for one run. For one run it is a read by the run's
 * key (`auditOfRun`): the run is read first, to know which id scheme its entries use.
 */
export async function listAudit(store: Store, filter: { runId?: string } = {}): Promise<AuditEntry[]> {
  if (filter.runId !== undefined) {
    const raw = await store.get('runs', filter.runId);
    if (raw !== undefined) return auditOfRun(store, parseRecord(RunSchema, 'runs', raw));
  }
  const entries = await listRecords(store, 'audit', AuditEntrySchema);
  return entries.filter((e) => filter.runId === undefined || e.run_id === filter.runId).sort(oldestFirst);
}

/**
 * One run's audit entries, oldest first: one read by the run's key (a folder listing by
 * prefix on JSON files, a Query of the prefix's sort-key range on DynamoDB). A run written before audit
 * ids carried their run's key (not `keyed`) is read from the whole log, filtered, until
 * `handoff store migrate` rewrites its entries.
 */
export async function auditOfRun(store: Store, run: Pick<Run, 'id' | 'keyed'>): Promise<AuditEntry[]> {
  const raw = run.keyed
    ? await listByIdPrefix(store, 'audit', runAuditPrefix(run.id))
    : await store.list('audit');
  const entries = raw
    .map((r) => parseRecord(AuditEntrySchema, 'audit', r))
    .filter((e) => e.run_id === run.id);
  if (run.keyed) return entries.sort(oldestFirst);
  // A migration under way may have copied an entry and not yet removed its older id: count it once.
  const ids = new Set(entries.map((e) => e.id));
  return entries
    .filter((e) => isKeyedAuditId(e.id, run.id) || !ids.has(migratedAuditId(e.id, run.id)))
    .sort(oldestFirst);
}

const oldestFirst = (a: AuditEntry, b: AuditEntry) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id);

/** The entry that closes a run in the audit log (completed, skipped or failed, said in `detail`). */
export function auditRunFinished(
  store: Store,
  run: { id: string; workflow_id: string },
  detail: string,
): Promise<AuditEntry> {
  return appendAudit(store, {
    run_id: run.id,
    workflow_id: run.workflow_id,
    item_id: null,
    outcome: 'run_finished',
    action: null,
    decided_by: null,
    detail,
  });
}

/**
 * `handoff store migrate`, the keys step (on AWS, a step the sweeper runs): rewrites what a
 * workspace wrote before its history was read by key, once.
 *
 * - Each run's audit entries whose ids do not carry the run's key are copied to the id that
 *   does (`migratedAuditId`: the id crash recovery looks for), then the old entry is removed.
 * - Each run's questions whose ids do not carry its key stay where they are (links name
 *   them); their ids are noted on the run (`legacy_decision_ids`), read by id from then on.
 * - The run is marked `keyed` last: until then every reader reads it the older way, so a
 *   migration killed anywhere leaves nothing unreadable, and the next one finishes it.
 * - Settled questions and finished runs are written again, so the by-time index holds them
 *   (DynamoDB items written before the index lack its keys; a JSON file store builds its own).
 * - The answers that teach about sender domains are gathered (domain-answers.ts), once.
 * - On JSON files, keyed records an earlier build kept flat move into their run's folder.
 * - The live rules go into the keys of what they match (memory/rule-keys.ts), with a marker of
 *   their own, so a workspace keyed before rules were is indexed too.
 * - The finished runs are summed into the running totals `stats` reads (run-totals.ts), with a
 *   marker of their own.
 * - Every artifact is written again so the by-time index holds it (artifacts/artifact-times.ts),
 *   with a marker of its own.
 * - Every chat is written again so the by-time index holds it (chats/chat-list.ts), with a
 *   marker of its own.
 * - Each domain proposal gets an id that carries its (workflow, domain) key, and so the status
 *   index's keys too (proposal-keys.ts), with a marker of its own.
 * - Every usage record goes into its workflow and day's roll-up `handoff usage` reads
 *   (recorder/usage-days.ts), with a marker of its own.
 * - Last, a marker record says it is done: a later migration, or the sweeper, reads only it.
 *
 * Every step is idempotent (a copy is a put of the same record; a run already keyed is left),
 * so a second migration writes nothing new, and one killed in the middle is simply run again.
 */
import { ARTIFACT_TIMES_MIGRATED_ID, migrateArtifactTimes } from '../artifacts/artifact-times.ts';
import { CHAT_TIMES_MIGRATED_ID, migrateChatTimes } from '../chats/chat-list.ts';
import { isKeyedAuditId, migratedAuditId } from '../audit/audit-ids.ts';
import { crashPoint } from '../config/processes.ts';
import { VersionConflictError } from '../errors/index.ts';
import { isStepDone, markStepDone } from '../settings/settings.ts';
import { AuditEntrySchema } from '../records/audit.ts';
import { DecisionSchema, RunSchema, type Run } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import { commitAll, getAll, type JsonRecord, type Store, type Write } from '../store/store.ts';
import { migrateRuleKeys, RULE_KEYS_MIGRATED_ID } from '../memory/rule-keys.ts';
import { runDecisionPrefix } from './decision-repository.ts';
import { backfillUsageDays, USAGE_DAYS_MIGRATED_ID } from '../recorder/usage-days.ts';
import { backfill, BACKFILLED_ID } from './domain-answers.ts';
import { migrateProposalKeys, PROPOSAL_KEYS_MIGRATED_ID } from './proposal-keys.ts';
import { backfillRunTotals, RUN_TOTALS_MIGRATED_ID } from './run-totals.ts';

/** The record that says a workspace's keys were migrated (in `settings`). */
export const KEYS_MIGRATED_ID = 'migration:keys';
const BATCH = 100;
const RUN_TRIES = 5;

/** What the keys step did. */
export interface KeyMigrationReport {
  /** True when the marker said it was done before: nothing was read but the marker. */
  already_done: boolean;
  /** Runs marked keyed by this migration. */
  runs: number;
  /** Audit entries moved to ids that carry their run's key. */
  audit_moved: number;
  /** Questions from before keys, now named on their runs. */
  legacy_decisions: number;
  /** Settled questions and finished runs written again into the by-time index. */
  reindexed: number;
  /** Records moved to the layout read by key (JSON files: into their run's folder). */
  relaid: number;
  /** Records of the live rules by what they match, written (memory/rule-keys.ts). */
  rule_keys: number;
  /** Finished runs summed into the running totals `stats` reads (run-totals.ts). */
  run_totals: number;
  /** Artifacts written again into the by-time index (artifacts/artifact-times.ts). */
  artifacts_indexed: number;
  /** Chats written again into the by-time index (chats/chat-list.ts). */
  chats_indexed: number;
  /** Domain proposals moved to ids that carry their (workflow, domain) key (proposal-keys.ts). */
  proposals_keyed: number;
  /** Usage records put into their workflow and day's roll-up (recorder/usage-days.ts). */
  usage_rolled_up: number;
}

/** Whether the workspace's keys (and each later step's) were migrated: one batched read. */
export async function keysMigrated(store: Store): Promise<boolean> {
  const markers = await getAll(store, 'settings', [
    KEYS_MIGRATED_ID,
    RULE_KEYS_MIGRATED_ID,
    RUN_TOTALS_MIGRATED_ID,
    ARTIFACT_TIMES_MIGRATED_ID,
    CHAT_TIMES_MIGRATED_ID,
    PROPOSAL_KEYS_MIGRATED_ID,
    USAGE_DAYS_MIGRATED_ID,
  ]);
  return markers.every((m) => m !== undefined);
}

/** The keys step of `handoff store migrate` for one workspace's store (see the file's comment). */
export async function migrateKeys(store: Store): Promise<KeyMigrationReport> {
  const report: KeyMigrationReport = {
    already_done: false,
    runs: 0,
    audit_moved: 0,
    legacy_decisions: 0,
    reindexed: 0,
    relaid: 0,
    rule_keys: 0,
    run_totals: 0,
    artifacts_indexed: 0,
    chats_indexed: 0,
    proposals_keyed: 0,
    usage_rolled_up: 0,
  };
  const rules = await migrateRuleKeys(store);
  report.rule_keys = rules.keys;
  const totals = await backfillRunTotals(store);
  report.run_totals = totals.runs;
  const artifacts = await migrateArtifactTimes(store);
  report.artifacts_indexed = artifacts.artifacts;
  const chats = await migrateChatTimes(store);
  report.chats_indexed = chats.chats;
  const proposals = await migrateProposalKeys(store);
  report.proposals_keyed = proposals.proposals;
  const usage = await backfillUsageDays(store);
  report.usage_rolled_up = usage.usage;
  const later = [rules, totals, artifacts, chats, proposals, usage];
  if (await isStepDone(store, KEYS_MIGRATED_ID))
    return { ...report, already_done: later.every((step) => step.already_done) };
  report.relaid = (await store.relayout?.()) ?? 0;
  const runs = (await store.list('runs')).map((r) => parseRecord(RunSchema, 'runs', r));
  const todo = runs.filter((r) => !r.keyed);
  if (todo.length > 0) {
    const audit = groupByRun(await store.list('audit'));
    const decisions = groupByRun(await store.list('decisions'));
    for (const run of todo) {
      const entries = (audit.get(run.id) ?? []).filter((e) => !isKeyedAuditId(e.id, run.id));
      report.audit_moved += await moveAudit(store, run, entries);
      const prefix = runDecisionPrefix(run.id);
      const legacy = (decisions.get(run.id) ?? []).filter((d) => !d.id.startsWith(prefix)).map((d) => d.id);
      report.legacy_decisions += legacy.length;
      await markKeyed(store, run.id, legacy);
      report.runs += 1;
      crashPoint('migrate:run-marked');
    }
  }
  report.reindexed = await reindex(store);
  if ((await store.get('domain_answers', BACKFILLED_ID)) === undefined) await backfill(store);
  await markStepDone(store, KEYS_MIGRATED_ID); // kept if another migration finished first
  return report;
}

/** Copies each entry to its keyed id (a put: the same record each time), then removes the old one. */
async function moveAudit(store: Store, run: Run, entries: readonly JsonRecord[]): Promise<number> {
  for (let i = 0; i < entries.length; i += BATCH) {
    const batch = entries.slice(i, i + BATCH);
    const writes: Write[] = batch.map((e) => {
      const entry = parseRecord(AuditEntrySchema, 'audit', e);
      return { kind: 'put', collection: 'audit', record: { ...entry, id: migratedAuditId(e.id, run.id) } };
    });
    for (const result of await commitAll(store, writes)) if (!result.ok) throw result.error;
    crashPoint('migrate:audit-copied');
    for (const e of batch) await store.delete('audit', e.id);
  }
  return entries.length;
}

/** Marks the run keyed (with its older questions' ids), re-reading it when another write moved it meanwhile. */
async function markKeyed(store: Store, runId: string, legacy: readonly string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const raw = await store.get('runs', runId);
    if (!raw) return; // removed meanwhile: nothing to mark
    const run = parseRecord(RunSchema, 'runs', raw);
    if (run.keyed) return;
    const record = {
      ...run,
      keyed: true,
      ...(legacy.length > 0 ? { legacy_decision_ids: [...legacy] } : {}),
    };
    try {
      await store.update('runs', record, run.version);
      return;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= RUN_TRIES) throw error;
    }
  }
}

/**
 * Writes every settled question and finished run again (conditional on its version: one
 * written meanwhile already has its index keys), so the by-time index holds the history.
 */
async function reindex(store: Store): Promise<number> {
  let written = 0;
  for (const collection of ['decisions', 'runs'] as const) {
    const settled = (await store.list(collection)).filter((r) =>
      collection === 'decisions'
        ? parseRecord(DecisionSchema, collection, r).status !== 'pending'
        : !['running', 'waiting'].includes(parseRecord(RunSchema, collection, r).status),
    );
    for (let i = 0; i < settled.length; i += BATCH) {
      const writes: Write[] = settled.slice(i, i + BATCH).map((record) => ({
        kind: 'update',
        collection,
        record,
        expectedVersion: Number(record.version),
      }));
      written += (await commitAll(store, writes)).filter((r) => r.ok).length;
    }
  }
  return written;
}

function groupByRun(records: readonly JsonRecord[]): Map<string, JsonRecord[]> {
  const byRun = new Map<string, JsonRecord[]>();
  for (const record of records) {
    const runId = typeof record.run_id === 'string' ? record.run_id : '';
    const group = byRun.get(runId);
    if (group) group.push(record);
    else byRun.set(runId, [record]);
  }
  return byRun;
}

import { HandoffError, RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { stableId } from '../store/ids.ts';
import { getRecord } from '../store/records.ts';
import type { Collection, Store } from '../store/store.ts';
import type { SessionBatch, SessionSink } from './recorder.ts';
import { roundUsd } from './prices.ts';
import {
  READABLE_SESSION_VERSIONS,
  SESSION_SCHEMA_VERSION,
  SESSIONS,
  SessionRecordSchema,
  USAGE,
  UsageRecordSchema,
  costParts,
  type ModelEntry,
  type SessionRecord,
  type TraceEntry,
  type UsageRecord,
} from './trace.ts';

/**
 * A run's session must fit one store record (DynamoDB caps an item at 400 KB). Past this
 * budget new entries lose their inputs and outputs; past it again they are only counted.
 */
export const SESSION_BUDGET_CHARS = 300_000;
const ATTEMPTS = 8;

/** A session record written by a build this one cannot read. */
export class UnreadableSessionError extends HandoffError {}

/**
 * Appends trace batches to the run's one 'sessions' record and adds their model calls
 * to the run's 'usage' records (one per model). A batch costs one conditional write for
 * the session plus one per model it used; a lost race is re-read and retried, so two
 * processes appending to the same run both land.
 */
export class StoreSessionSink implements SessionSink {
  constructor(
    private readonly store: Store,
    private readonly budgetChars = SESSION_BUDGET_CHARS,
  ) {}

  async append(batch: SessionBatch): Promise<void> {
    if (batch.entries.length === 0) return;
    await this.appendSession(batch);
    const byModel = new Map<string, ModelEntry[]>();
    for (const entry of batch.entries)
      if (entry.kind === 'model')
        byModel.set(entry.model_id, [...(byModel.get(entry.model_id) ?? []), entry]);
    for (const [modelId, calls] of byModel) await this.addUsage(batch, modelId, calls);
  }

  private async appendSession(batch: SessionBatch): Promise<void> {
    const id = batch.sessionId ?? batch.runId;
    await upsert(this.store, SESSIONS, id, async () => {
      const current = await readSession(this.store, id);
      const kept = current?.entries ?? [];
      let size = JSON.stringify(kept).length;
      const entries = [...kept];
      let dropped = current?.dropped ?? 0;
      for (const entry of batch.entries) {
        const fitted = fit(entry, size, this.budgetChars);
        if (fitted) {
          entries.push(fitted);
          size += JSON.stringify(fitted).length + 1;
        } else dropped += 1;
      }
      const record: Omit<SessionRecord, 'version'> = {
        id,
        schema_version: SESSION_SCHEMA_VERSION,
        run_id: batch.runId,
        workflow_id: batch.workflowId,
        entries,
        dropped,
        updated_at: new Date().toISOString(),
      };
      return { record, version: current?.version };
    });
  }

  private async addUsage(batch: SessionBatch, modelId: string, calls: ModelEntry[]): Promise<void> {
    const id = usageId(batch.runId, modelId);
    await upsert(this.store, USAGE, id, async () => {
      const current = await getRecord(this.store, USAGE, UsageRecordSchema, id);
      const before = current ? costParts(current) : { known: 0, unknownCalls: 0 };
      const known = roundUsd(before.known + sum(calls, (c) => c.cost_usd ?? 0));
      const unknownCalls = before.unknownCalls + calls.filter((c) => c.cost_usd === null).length;
      const record: Omit<UsageRecord, 'version'> = {
        id,
        run_id: batch.runId,
        workflow_id: batch.workflowId,
        model_id: modelId,
        day: current?.day ?? calls[0]!.at.slice(0, 10),
        input_tokens: (current?.input_tokens ?? 0) + sum(calls, (c) => c.input_tokens),
        output_tokens: (current?.output_tokens ?? 0) + sum(calls, (c) => c.output_tokens),
        cost_usd: unknownCalls === 0 ? known : null,
        priced: unknownCalls === 0,
        calls: (current?.calls ?? 0) + calls.length,
        known_cost_usd: known,
        unknown_cost_calls: unknownCalls,
        updated_at: new Date().toISOString(),
      };
      return { record, version: current?.version };
    });
  }
}

/** The id of a run's usage record for one model. */
export function usageId(runId: string, modelId: string): string {
  return stableId('usage', runId, modelId);
}

/**
 * The learner's trace for one answer: a small record of its own, so an answer never
 * rewrites the run's whole trace (inspect shows it after the answer).
 */
export function learnerSessionId(decisionId: string): string {
  return stableId('learn', decisionId);
}

/** The run's session record (or another session record by id), or undefined when nothing was recorded. */
export async function readSession(store: Store, sessionId: string): Promise<SessionRecord | undefined> {
  const raw = await store.get(SESSIONS, sessionId);
  if (raw === undefined) return undefined;
  if (typeof raw.schema_version === 'number' && !READABLE_SESSION_VERSIONS.includes(raw.schema_version))
    throw new UnreadableSessionError(
      `the trace ${sessionId} was written as v${raw.schema_version}; this build reads v${READABLE_SESSION_VERSIONS.join(', v')}`,
    );
  return getRecord(store, SESSIONS, SessionRecordSchema, sessionId);
}

/** Keeps an entry whole if it fits the budget, else without its payloads, else not at all. */
function fit(entry: TraceEntry, size: number, budget: number): TraceEntry | null {
  if (size + JSON.stringify(entry).length < budget) return entry;
  const omitted = '[omitted: the trace reached its size limit]';
  const compact: TraceEntry =
    entry.kind === 'tool'
      ? { ...entry, input: omitted, output: omitted }
      : entry.kind === 'model'
        ? {
            ...entry,
            output: omitted,
            ...(entry.repairs
              ? { repairs: entry.repairs.map((r) => ({ ...r, before: omitted, after: omitted })) }
              : {}),
          }
        : entry;
  return size + JSON.stringify(compact).length < budget ? compact : null;
}

/** Create-or-update with the store's version check, re-reading after a lost race. */
async function upsert(
  store: Store,
  collection: Collection,
  id: string,
  next: () => Promise<{ record: { id: string } & Record<string, unknown>; version: number | undefined }>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { record, version } = await next();
    try {
      if (version === undefined) await store.create(collection, record);
      else await store.update(collection, record, version);
      return;
    } catch (error) {
      const lost = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!lost || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

function sum<T>(items: T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}

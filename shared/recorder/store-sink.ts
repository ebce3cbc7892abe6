import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { stableId } from '../store/ids.ts';
import { getRecord, parseRecord } from '../store/records.ts';
import { commitAll, type Collection, type JsonRecord, type Store, type Write } from '../store/store.ts';
import type { SessionBatch, SessionSink } from './recorder.ts';
import { roundUsd } from './prices.ts';
import { catchUp, chunkId, findTail, type Tail } from './session-chunks.ts';
import {
  OMITTED,
  SESSION_SCHEMA_VERSION,
  SESSIONS,
  USAGE,
  UsageRecordSchema,
  costParts,
  type ModelEntry,
  type SessionChunk,
  type TraceEntry,
  type UsageRecord,
} from './trace.ts';
import { byRollUp, readUsageDay, syncUsageDay, usageDayWrite } from './usage-days.ts';

export { readSession } from './session-chunks.ts';

/**
 * A run's trace is bounded: past this budget new entries lose their inputs and outputs;
 * past it again they are only counted.
 */
export const SESSION_BUDGET_CHARS = 300_000;
/** A chunk stays far below DynamoDB's 400 KB item cap; a bigger batch is split. */
export const CHUNK_BYTES = 100_000;
const ATTEMPTS = 8;

/**
 * Appends trace batches to the run's session as chunks, each created once and never
 * rewritten, and adds their model calls to the run's 'usage' records (one per model), each
 * copied into its workflow and day's roll-up (usage-days.ts). A batch that fits one chunk is
 * one commit of the chunk, its usage writes and their roll-up (one durable write where the
 * store can), read after its usage records and roll-up; a bigger one, a write each. The running
 * size is kept here; the first batch of a process finds the session's last chunk. A
 * create lost to another process reads the chunks it missed and goes after them, so two
 * processes appending to the same run both land.
 */
export class StoreSessionSink implements SessionSink {
  private readonly tails = new Map<string, Tail>();

  /** `newSessions`: sessions this sink starts (a learner's, one per answer): no read to find their end. */
  /**
   * `known`: sessions whose end is known without a read — a session this sink starts (a
   * learner's, a fresh run's: NEW_SESSION_TAIL), or a run's, as its last pass left it. Should
   * more chunks exist after all (a retry), the first create fails and they are caught up.
   */
  constructor(
    private readonly store: Store,
    private readonly budgetChars = SESSION_BUDGET_CHARS,
    known: ReadonlyMap<string, Tail> = new Map(),
  ) {
    for (const [id, tail] of known) this.tails.set(id, { ...tail });
  }

  tailOf(sessionId: string): Tail | undefined {
    const tail = this.tails.get(sessionId);
    return tail && { ...tail };
  }

  async append(batch: SessionBatch): Promise<void> {
    if (batch.entries.length === 0) return;
    const byModel = new Map<string, ModelEntry[]>();
    for (const entry of batch.entries)
      if (entry.kind === 'model')
        byModel.set(entry.model_id, [...(byModel.get(entry.model_id) ?? []), entry]);
    if (await this.appendAtOnce(batch, byModel)) return;
    await this.appendSession(batch);
    for (const [modelId, calls] of byModel) await this.addUsage(batch, modelId, calls);
  }

  /**
   * The common case in one commit (one TransactWriteItems on DynamoDB): a batch that fits
   * one chunk of a session whose end is known, with its usage records. What loses a race
   * is redone the careful way: the chunk after catching up, a usage record after re-reading.
   * False when the batch is not that case (nothing was written).
   */
  private async appendAtOnce(batch: SessionBatch, byModel: Map<string, ModelEntry[]>): Promise<boolean> {
    const id = batch.sessionId ?? batch.runId;
    const tail = this.tails.get(id);
    if (!tail) return false;
    const { taken, ...next } = nextChunk(batch.entries, tail, this.budgetChars);
    if (taken < batch.entries.length) return false;
    const chunk = chunkRecord(batch, id, tail.next, next);
    const models = [...byModel];
    const usage = await Promise.all(models.map(([modelId, calls]) => this.nextUsage(batch, modelId, calls)));
    // Each record as it will be once its write lands, for its day's roll-up (usage-days.ts).
    const landing = usage.map(({ record, version }) => ({ ...record, version: (version ?? 0) + 1 }));
    const rollUps = await this.rollUpWrites(landing);
    const [landed, ...counted] = await commitAll(this.store, [
      { kind: 'create', collection: SESSIONS, record: chunk },
      ...usage.map(usageWriteOf),
      ...rollUps.map((r) => r.write),
    ]);
    if (landed!.ok) this.tails.set(id, { next: tail.next + 1, chars: next.chars });
    else if (landed!.error instanceof RecordExistsError) await this.appendSession(batch);
    else throw landed!.error;
    const usageResults = counted.slice(0, usage.length);
    for (const [i, result] of usageResults.entries()) {
      if (result.ok) continue;
      throwUnlessRaced(result.error);
      await this.addUsage(batch, models[i]![0], models[i]![1]); // and its roll-up
    }
    // A roll-up that lost a race (to another run of the day) is written again with the copies that landed.
    for (const [j, result] of counted.slice(usage.length).entries()) {
      if (result.ok) continue;
      throwUnlessRaced(result.error);
      const copies = rollUps[j]!.copies.filter((u) => usageResults[landing.indexOf(u)]!.ok);
      await syncUsageDay(this.store, copies);
    }
    return true;
  }

  /** The writes that put `landing` into their days' roll-ups (one per workflow and day), with the copies each holds. */
  private async rollUpWrites(landing: UsageRecord[]): Promise<{ write: Write; copies: UsageRecord[] }[]> {
    const writes = await Promise.all(
      byRollUp(landing).map(async (copies) => {
        const current = await readUsageDay(this.store, copies[0]!.day, copies[0]!.workflow_id);
        const write = usageDayWrite(current, copies);
        return write && { write, copies };
      }),
    );
    return writes.filter((w) => w !== null);
  }

  private async appendSession(batch: SessionBatch): Promise<void> {
    const id = batch.sessionId ?? batch.runId;
    let tail = this.tails.get(id) ?? (await findTail(this.store, id));
    let pending = batch.entries;
    while (pending.length > 0) {
      const { taken, ...next } = nextChunk(pending, tail, this.budgetChars);
      const chunk = chunkRecord(batch, id, tail.next, next);
      try {
        await this.store.create(SESSIONS, chunk);
      } catch (error) {
        if (!(error instanceof RecordExistsError)) throw error;
        const after = await catchUp(this.store, id, tail);
        if (after.next === tail.next) throw error; // taken, yet not readable: give up on this batch
        tail = after;
        this.tails.set(id, tail);
        continue;
      }
      tail = { next: tail.next + 1, chars: next.chars };
      this.tails.set(id, tail);
      pending = pending.slice(taken);
    }
  }

  /** Adds `calls` to the run's usage record for one model, then puts that into its day's roll-up. */
  private async addUsage(batch: SessionBatch, modelId: string, calls: ModelEntry[]): Promise<void> {
    const landed = await upsert(this.store, USAGE, usageId(batch.runId, modelId), () =>
      this.nextUsage(batch, modelId, calls),
    );
    await syncUsageDay(this.store, [parseRecord(UsageRecordSchema, USAGE, landed)]);
  }

  /** The run's usage record for one model with `calls` added, and the version it replaces. */
  private async nextUsage(
    batch: SessionBatch,
    modelId: string,
    calls: ModelEntry[],
  ): Promise<{ record: Omit<UsageRecord, 'version'>; version: number | undefined }> {
    const id = usageId(batch.runId, modelId);
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
  }
}

/** The id of a run's usage record for one model. */
export function usageId(runId: string, modelId: string): string {
  return stableId('usage', runId, modelId);
}

/**
 * The learner's trace for one answer: a session of its own, which inspect shows after the
 * answer rather than where the learner happened to run.
 */
export function learnerSessionId(decisionId: string): string {
  return stableId('learn', decisionId);
}

/**
 * The next chunk of a batch: its entries fitted to the budget from `tail` on, up to
 * CHUNK_BYTES; `taken` is how many pending entries it accounts for (kept or dropped).
 */
function nextChunk(
  pending: readonly TraceEntry[],
  tail: Tail,
  budget: number,
): { entries: TraceEntry[]; dropped: number; chars: number; taken: number } {
  const entries: TraceEntry[] = [];
  let { chars } = tail;
  let dropped = 0;
  let bytes = 0;
  let taken = 0;
  for (const entry of pending) {
    const fitted = fit(entry, chars, budget);
    if (fitted) {
      const text = JSON.stringify(fitted);
      const size = Buffer.byteLength(text);
      if (entries.length > 0 && bytes + size > CHUNK_BYTES) break;
      entries.push(fitted);
      chars += text.length + 1;
      bytes += size;
    } else dropped += 1;
    taken += 1;
  }
  return { entries, dropped, chars, taken };
}

/** Keeps an entry whole if it fits the budget, else without its payloads, else not at all. */
function fit(entry: TraceEntry, size: number, budget: number): TraceEntry | null {
  if (size + JSON.stringify(entry).length < budget) return entry;
  const compact: TraceEntry =
    entry.kind === 'tool'
      ? { ...entry, input: OMITTED, output: OMITTED }
      : entry.kind === 'model'
        ? {
            ...entry,
            output: OMITTED,
            ...(entry.repairs
              ? { repairs: entry.repairs.map((r) => ({ ...r, before: OMITTED, after: OMITTED })) }
              : {}),
          }
        : entry;
  return size + JSON.stringify(compact).length < budget ? compact : null;
}

/** Create-or-update with the store's version check, re-reading after a lost race; the record as stored. */
async function upsert(
  store: Store,
  collection: Collection,
  id: string,
  next: () => Promise<{ record: { id: string } & Record<string, unknown>; version: number | undefined }>,
): Promise<JsonRecord> {
  for (let attempt = 1; ; attempt++) {
    const { record, version } = await next();
    try {
      if (version === undefined) return await store.create(collection, record);
      return await store.update(collection, record, version);
    } catch (error) {
      const lost = error instanceof VersionConflictError || error instanceof RecordExistsError;
      if (!lost || attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/** The write of a usage record `nextUsage` made: a create, or an update of the version it read. */
function usageWriteOf({
  record,
  version,
}: {
  record: Omit<UsageRecord, 'version'>;
  version: number | undefined;
}): Write {
  return version === undefined
    ? { kind: 'create', collection: USAGE, record }
    : { kind: 'update', collection: USAGE, record, expectedVersion: version };
}

/** Throws `error` unless it is a lost race (a taken id, a moved version), which the caller redoes. */
function throwUnlessRaced(error: Error): void {
  if (!(error instanceof VersionConflictError || error instanceof RecordExistsError)) throw error;
}

function sum<T>(items: T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}

/** Chunk `seq` of session `id`, holding what `nextChunk` took from the batch. */
function chunkRecord(
  batch: SessionBatch,
  id: string,
  seq: number,
  content: Omit<ReturnType<typeof nextChunk>, 'taken'>,
): Omit<SessionChunk, 'version'> {
  return {
    id: chunkId(id, seq),
    schema_version: SESSION_SCHEMA_VERSION,
    session_id: id,
    seq,
    run_id: batch.runId,
    workflow_id: batch.workflowId,
    ...content,
    at: new Date().toISOString(),
  };
}

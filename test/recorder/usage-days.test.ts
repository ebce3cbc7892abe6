/**
 * `handoff usage` from the roll-ups (shared/recorder/usage-days.ts), on JSON files and on
 * DynamoDB (dynalite): the report equals the sums of every usage record, on a store of many
 * runs, models and days, some written before roll-ups; once migrated it reads no usage record;
 * runs racing on one day, two writers of one run and a writer that updates a usage record
 * without its roll-up (an older build, mid-deploy) count nothing twice or miss nothing; the
 * backfill step of `handoff store migrate` is idempotent and survives a SIGKILL.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StoreSessionSink, usageId } from '../../shared/recorder/store-sink.ts';
import { NEW_SESSION_TAIL } from '../../shared/recorder/session-chunks.ts';
import { roundUsd } from '../../shared/recorder/prices.ts';
import { costParts, USAGE, UsageRecordSchema, type ModelEntry } from '../../shared/recorder/trace.ts';
import {
  backfillUsageDays,
  listUsageDays,
  MAX_COPIES,
  readUsageDay,
  syncUsageDay,
  USAGE_DAYS,
  USAGE_DAYS_MIGRATED_ID,
} from '../../shared/recorder/usage-days.ts';
import { usageByWorkflowDay, type UsageRow } from '../../shared/recorder/views.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { getRecord, listRecords } from '../../shared/store/records.ts';
import type { Store, Write } from '../../shared/store/store.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { spyOnStore } from '../support/store-spy.ts';

const DAYS = ['2026-01-03', '2026-01-04', '2026-01-05', '2026-02-11', '2026-02-12'];
const WORKFLOWS = ['inbox', 'triage', 'digest'];
const MODELS = ['gpt-4o-mini', 'claude-haiku', 'no-price-model'];

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-usage-days-'));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

function turn(day: string, model: string, n: number): ModelEntry {
  return {
    kind: 'model',
    at: `${day}T09:00:00.000Z`,
    node: 'executor',
    model_id: model,
    ms: 5,
    input_messages: 2,
    input_chars: 400,
    input_tokens: 1000 + n,
    output_tokens: 100 + n,
    cost_usd: model === 'no-price-model' ? null : roundUsd(0.000123 * (n + 1)),
    stop_reason: 'toolUse',
    output: 'x',
  };
}

/** What the report was before roll-ups: every usage record summed per workflow and day, oldest first. */
async function sumsOfEveryUsageRecord(store: Store): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow>();
  for (const u of await listRecords(store, USAGE, UsageRecordSchema)) {
    const key = `${u.day}|${u.workflow_id}`;
    const row = rows.get(key) ?? {
      workflow_id: u.workflow_id,
      day: u.day,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      calls: 0,
      known_cost_usd: 0,
      unknown_cost_calls: 0,
    };
    const { known, unknownCalls } = costParts(u);
    row.input_tokens += u.input_tokens;
    row.output_tokens += u.output_tokens;
    row.known_cost_usd = roundUsd(row.known_cost_usd + known);
    row.unknown_cost_calls += unknownCalls;
    row.cost_usd = row.unknown_cost_calls === 0 ? row.known_cost_usd : null;
    row.calls += u.calls;
    rows.set(key, row);
  }
  return [...rows.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || a.workflow_id.localeCompare(b.workflow_id),
  );
}

/** Usage records as a build before roll-ups wrote them: no roll-up; some with no known/unknown split. */
async function seedOlderUsage(store: Store, runs: number): Promise<void> {
  for (let i = 0; i < runs; i++) {
    for (const model of MODELS.slice(0, 1 + (i % 3))) {
      const priced = model !== 'no-price-model';
      await store.create(USAGE, {
        id: usageId(`run_old_${i}`, model),
        run_id: `run_old_${i}`,
        workflow_id: WORKFLOWS[i % WORKFLOWS.length]!,
        model_id: model,
        day: DAYS[Math.floor(i / 3) % 3]!,
        input_tokens: 500 + i,
        output_tokens: 50 + i,
        cost_usd: priced ? roundUsd(0.0001 * (i + 1)) : null,
        priced,
        calls: 1 + (i % 4),
        ...(i % 2 === 0 ? { known_cost_usd: priced ? roundUsd(0.0001 * (i + 1)) : 0 } : {}),
        updated_at: new Date().toISOString(),
      });
    }
  }
}

/** Runs written by this build's sink, `batches` batches each, runs of one day racing each other. */
async function writeRuns(store: Store, prefix: string, runs: number, batches: number): Promise<void> {
  await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const runId = `${prefix}_${i}`;
      const day = DAYS[2 + (i % 3)]!;
      const sink = new StoreSessionSink(store, undefined, new Map([[runId, NEW_SESSION_TAIL]]));
      for (let b = 0; b < batches; b++) {
        const models = MODELS.slice(0, 1 + ((i + b) % 3));
        const entries = models.flatMap((m, j) => [turn(day, m, i + b + j), turn(day, m, i * b + j)]);
        await sink.append({ runId, workflowId: WORKFLOWS[i % 2]!, entries });
      }
    }),
  );
}

const dynamoStore = dynaliteTables('usage-days');
let jsonCount = 0;
const backends: [string, () => Promise<Store>][] = [
  ['JSON files', () => Promise.resolve(new JsonFileStore(path.join(root, `json-${jsonCount++}`)))],
  ['DynamoDB (dynalite)', dynamoStore],
];

describe.each(backends)('usage roll-ups on %s', (_name, makeStore) => {
  it('the report from the roll-ups equals the sums of every usage record, and reads no usage record once migrated', async () => {
    // Prepare: older records without roll-ups, then runs of this build (some on the same days).
    const store = await makeStore();
    await seedOlderUsage(store, 30);
    await writeRuns(store, 'run_new', 24, 3);
    const expected = await sumsOfEveryUsageRecord(store);
    expect(expected.length).toBeGreaterThanOrEqual(12);
    // Before the backfill: the older way, the same figures.
    expect(await usageByWorkflowDay(store)).toEqual(expected);
    // Act: the backfill step.
    const report = await backfillUsageDays(store);
    expect(report).toEqual({ already_done: false, usage: (await store.list(USAGE)).length });
    // Assert: the same rows from one record per workflow and day, no usage record read.
    const spy = spyOnStore(store);
    expect(await usageByWorkflowDay(spy.store)).toEqual(expected);
    expect(spy.fullReads).toEqual([]);
    expect(spy.recordsRead[USAGE] ?? 0).toBe(0);
    expect(spy.recordsRead[USAGE_DAYS]).toBe(expected.length);
    // More runs after the migration land in the roll-ups too.
    await writeRuns(store, 'run_later', 9, 2);
    expect(await usageByWorkflowDay(store)).toEqual(await sumsOfEveryUsageRecord(store));
  });

  it('a workspace that began with roll-ups is marked by its first report, read by key from then on', async () => {
    // Prepare: every usage record written by this build's sink, no migration.
    const store = await makeStore();
    await writeRuns(store, 'run_fresh', 8, 2);
    const expected = await sumsOfEveryUsageRecord(store);
    // Act: the first report reads the older way, finds each record in its roll-up, and marks it.
    expect(await usageByWorkflowDay(store)).toEqual(expected);
    expect(await store.get('settings', USAGE_DAYS_MIGRATED_ID)).toBeDefined();
    // Assert: the next reads no usage record.
    const spy = spyOnStore(store);
    expect(await usageByWorkflowDay(spy.store)).toEqual(expected);
    expect(spy.fullReads).toEqual([]);
  });

  it('an older record not in a roll-up keeps the report on the older way, unmarked', async () => {
    const store = await makeStore();
    await writeRuns(store, 'run_mixed', 4, 1);
    await seedOlderUsage(store, 1);
    expect(await usageByWorkflowDay(store)).toEqual(await sumsOfEveryUsageRecord(store));
    expect(await store.get('settings', USAGE_DAYS_MIGRATED_ID)).toBeUndefined();
  });

  it('two writers of one run, and a usage write that lost its race after its roll-up landed, count nothing twice', async () => {
    // Prepare: a store where, at the first commit of a usage update, another writer (an older
    // build: no roll-up) moves that usage record first, so the commit's usage write loses and
    // its roll-up copy lands, ahead of the record.
    const store = await makeStore();
    await backfillUsageDays(store);
    let interfered = false;
    const racing: Store = Object.create(store) as Store;
    racing.commit = async (writes: readonly Write[], options) => {
      const update = writes.find((w) => w.kind === 'update' && w.collection === USAGE);
      if (update && !interfered) {
        interfered = true;
        const current = (await getRecord(store, USAGE, UsageRecordSchema, update.record.id))!;
        const { version, ...rest } = current;
        await store.update(
          USAGE,
          { ...rest, input_tokens: rest.input_tokens + 7, calls: rest.calls + 1 },
          version,
        );
      }
      return store.commit!(writes, options);
    };
    // Act: two sinks append to the same run at once, then the racing one appends again.
    const runId = 'run_shared';
    const first = new StoreSessionSink(store, undefined, new Map([[runId, NEW_SESSION_TAIL]]));
    const second = new StoreSessionSink(store);
    await Promise.all([
      first.append({ runId, workflowId: 'inbox', entries: [turn(DAYS[0]!, MODELS[0]!, 1)] }),
      second.append({ runId, workflowId: 'inbox', entries: [turn(DAYS[0]!, MODELS[0]!, 2)] }),
    ]);
    const third = new StoreSessionSink(racing, undefined, new Map([[runId, first.tailOf(runId)!]]));
    await third.append({ runId, workflowId: 'inbox', entries: [turn(DAYS[0]!, MODELS[0]!, 3)] });
    expect(interfered).toBe(true);
    // Assert: the roll-up holds the record as it is, at its version; the report equals the sums.
    const usage = (await getRecord(store, USAGE, UsageRecordSchema, usageId(runId, MODELS[0]!)))!;
    expect(usage.calls).toBe(4);
    const [rollUp] = await listUsageDays(store);
    expect(rollUp!.usage[usage.id]![0]).toBe(usage.version);
    expect(await usageByWorkflowDay(store)).toEqual(await sumsOfEveryUsageRecord(store));
  });

  it('a roll-up past MAX_COPIES is marked full and written no more; the report then sums the usage records', async () => {
    // Prepare: a migrated workspace whose inbox roll-up of one day already holds MAX_COPIES copies.
    const store = await makeStore();
    await backfillUsageDays(store);
    const day = DAYS[2]!;
    const held = Array.from({ length: MAX_COPIES }, (_, i) => ({
      id: usageId(`run_busy_${i}`, MODELS[0]!),
      run_id: `run_busy_${i}`,
      workflow_id: 'inbox',
      model_id: MODELS[0]!,
      day,
      input_tokens: 10 + i,
      output_tokens: 1,
      cost_usd: 0.0001,
      priced: true,
      calls: 1,
      known_cost_usd: 0.0001,
      unknown_cost_calls: 0,
      updated_at: new Date().toISOString(),
    }));
    for (let i = 0; i < held.length; i += 50)
      await Promise.all(held.slice(i, i + 50).map((u) => store.create(USAGE, u)));
    await syncUsageDay(store, await listRecords(store, USAGE, UsageRecordSchema));
    expect(Object.keys((await readUsageDay(store, day, 'inbox'))!.usage)).toHaveLength(MAX_COPIES);
    // Act: one more run of that workflow on that day, then another.
    const one = new StoreSessionSink(store, undefined, new Map([['run_past', NEW_SESSION_TAIL]]));
    await one.append({ runId: 'run_past', workflowId: 'inbox', entries: [turn(day, MODELS[1]!, 1)] });
    const full = (await readUsageDay(store, day, 'inbox'))!;
    const two = new StoreSessionSink(store, undefined, new Map([['run_after', NEW_SESSION_TAIL]]));
    await two.append({ runId: 'run_after', workflowId: 'inbox', entries: [turn(day, MODELS[0]!, 2)] });
    // Assert: full, the copies it held kept, not written again; the report still equals the sums.
    expect(full.full).toBe(true);
    expect(Object.keys(full.usage)).toHaveLength(MAX_COPIES);
    expect((await readUsageDay(store, day, 'inbox'))!.version).toBe(full.version);
    const spy = spyOnStore(store);
    expect(await usageByWorkflowDay(spy.store)).toEqual(await sumsOfEveryUsageRecord(store));
    expect(spy.recordsRead[USAGE]).toBe(MAX_COPIES + 2);
  });

  it('putting a copy again, or an older one, writes nothing; the backfill run again changes nothing', async () => {
    // Prepare: runs written, migrated.
    const store = await makeStore();
    await seedOlderUsage(store, 6);
    await writeRuns(store, 'run_again', 6, 2);
    await backfillUsageDays(store);
    const rollUps = await listUsageDays(store);
    const usage = await listRecords(store, USAGE, UsageRecordSchema);
    // Act: every record put again (a retried batch), one as an older version, and the backfill
    // run again as if killed before its marker.
    for (const u of usage) await syncUsageDay(store, [u]);
    await syncUsageDay(store, [{ ...usage[0]!, version: usage[0]!.version - 1, calls: 999 }]);
    await store.delete('settings', USAGE_DAYS_MIGRATED_ID);
    expect(await backfillUsageDays(store)).toEqual({ already_done: false, usage: usage.length });
    // Assert: not one roll-up written again.
    expect(await listUsageDays(store)).toEqual(expect.arrayContaining(rollUps));
    expect((await listUsageDays(store)).length).toBe(rollUps.length);
    expect(await backfillUsageDays(store)).toEqual({ already_done: true, usage: 0 });
    expect(await usageByWorkflowDay(store)).toEqual(await sumsOfEveryUsageRecord(store));
  });
});

describe('`handoff store migrate` rolls usage up by day', () => {
  it('killed in the middle, run again: the same report; then it reads only its marker', async () => {
    // Prepare: a workspace with usage from before roll-ups.
    const stateDir = path.join(root, 'migrate');
    const store = new JsonFileStore(workspaceDir(stateDir, 'default'));
    await seedOlderUsage(store, 40);
    const expected = await sumsOfEveryUsageRecord(store);
    const env = { HANDOFF_STATE_DIR: stateDir };
    // Act 1: killed after the first roll-up was written, before the marker.
    const killed = await runCli(['store', 'migrate', '--json'], {
      ...env,
      HANDOFF_CRASH_AT: 'migrate:usage-day-written',
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(await store.list(USAGE_DAYS)).toHaveLength(1);
    expect(await store.get('settings', USAGE_DAYS_MIGRATED_ID)).toBeUndefined();
    const usage = await runCli(['usage', '--json'], env);
    expect(JSON.parse(usage.stdout)).toEqual(expected); // the older way until the marker
    // Act 2: run again: every usage record in its roll-up, and the marker.
    const again = await runCli(['store', 'migrate', '--json'], env);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ workspace: 'default', usage_rolled_up: (await store.list(USAGE)).length }),
    ]);
    expect(await store.get('settings', USAGE_DAYS_MIGRATED_ID)).toBeDefined();
    const rollUps = await listUsageDays(store);
    expect(rollUps).toHaveLength(expected.length);
    expect(JSON.parse((await runCli(['usage', '--json'], env)).stdout)).toEqual(expected);
    // Act 3: once more: nothing read but the markers, nothing written.
    const third = await runCli(['store', 'migrate', '--json'], env);
    expect((JSON.parse(third.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ already_done: true, usage_rolled_up: 0 }),
    ]);
    expect(await listUsageDays(store)).toEqual(rollUps);
  });
});

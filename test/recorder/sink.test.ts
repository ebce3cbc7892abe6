import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { SessionRecorder, type SessionBatch } from '../../shared/recorder/recorder.ts';
import { readSession, StoreSessionSink, usageId } from '../../shared/recorder/store-sink.ts';
import { USAGE, UsageRecordSchema, type ModelEntry, type ToolEntry } from '../../shared/recorder/trace.ts';
import { usageByWorkflowDay } from '../../shared/recorder/views.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { getRecord } from '../../shared/store/records.ts';

let dir: string;
let store: JsonFileStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-recorder-'));
  store = new JsonFileStore(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

function turn(over: Partial<ModelEntry> = {}): ModelEntry {
  return {
    kind: 'model',
    at: '2026-03-10T09:00:00.000Z',
    node: 'executor',
    model_id: 'gpt-4o-mini',
    ms: 5,
    input_messages: 2,
    input_chars: 400,
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    cost_usd: 0.21,
    stop_reason: 'toolUse',
    output: 'fetch_items({})',
    ...over,
  };
}

function toolCall(n: number, payload = 'x'): ToolEntry {
  return {
    kind: 'tool',
    at: '2026-03-10T09:00:01.000Z',
    node: 'executor',
    tool: 'submit_action',
    tool_use_id: `t${n}`,
    input: payload,
    output: payload,
    status: 'success',
    ms: 1,
  };
}

const batch = (runId: string, workflowId: string, entries: SessionBatch['entries']): SessionBatch => ({
  runId,
  workflowId,
  entries,
});

describe('the store sink', () => {
  it('lands batches from two processes appending to the same run at once', async () => {
    const other = new JsonFileStore(dir);
    await Promise.all([
      new StoreSessionSink(store).append(batch('run_1', 'inbox', [toolCall(1), toolCall(2)])),
      new StoreSessionSink(other).append(batch('run_1', 'inbox', [toolCall(3)])),
    ]);
    const ids = (await readSession(store, 'run_1'))!.entries.map((e) => (e as ToolEntry).tool_use_id);
    expect(ids.sort()).toEqual(['t1', 't2', 't3']);
  });

  it('keeps a trace within its size budget: payloads are omitted first, then steps are counted as dropped', async () => {
    const sink = new StoreSessionSink(store, 3_000);
    const big = 'y'.repeat(900);
    await sink.append(batch('run_1', 'inbox', [toolCall(1, big), toolCall(2, big), toolCall(3, big)]));
    await sink.append(
      batch(
        'run_1',
        'inbox',
        Array.from({ length: 20 }, (_, i) => toolCall(10 + i)),
      ),
    );
    const session = (await readSession(store, 'run_1'))!;
    const tools = session.entries as ToolEntry[];
    expect(tools[0]!.output).toBe(big);
    expect(tools.some((t) => t.output.startsWith('[omitted'))).toBe(true);
    expect(session.dropped).toBeGreaterThan(0);
    expect(JSON.stringify(session.entries).length).toBeLessThan(3_000);
  });

  it('keeps a repair past the budget, without its raw text', async () => {
    const sink = new StoreSessionSink(store, 2_000);
    const raw = 'z'.repeat(400);
    const repair = {
      source: 'failed_generation',
      tools: ['submit_action'],
      fixes: ['trailing comma'],
      before: raw,
      after: raw,
      detail: 'Repaired the tool call the endpoint refused (submit_action): trailing comma',
    };
    await sink.append(batch('run_1', 'inbox', [toolCall(1, 'y'.repeat(600)), turn({ repairs: [repair] })]));
    const [, kept] = (await readSession(store, 'run_1'))!.entries as ModelEntry[];
    expect(kept!.repairs).toEqual([
      {
        ...repair,
        before: '[omitted: the trace reached its size limit]',
        after: '[omitted: the trace reached its size limit]',
      },
    ]);
  });

  it('sums tokens, cost and calls per workflow and day across runs and models', async () => {
    const sink = new StoreSessionSink(store);
    await sink.append(batch('run_a', 'inbox', [turn(), turn()]));
    await sink.append(batch('run_a', 'inbox', [turn({ model_id: 'handoff-offline', cost_usd: 0 })]));
    await sink.append(batch('run_b', 'inbox', [turn()]));
    await sink.append(batch('run_c', 'prs', [turn({ at: '2026-03-11T08:00:00.000Z' })]));
    await sink.append(
      batch('run_d', 'prs', [turn({ at: '2026-03-11T09:00:00.000Z', model_id: 'mystery', cost_usd: null })]),
    );

    expect(await usageByWorkflowDay(store)).toEqual([
      {
        workflow_id: 'inbox',
        day: '2026-03-10',
        input_tokens: 4_000_000,
        output_tokens: 400_000,
        cost_usd: 0.63,
        calls: 4,
        known_cost_usd: 0.63,
        unknown_cost_calls: 0,
      },
      {
        workflow_id: 'prs',
        day: '2026-03-11',
        input_tokens: 2_000_000,
        output_tokens: 200_000,
        cost_usd: null,
        calls: 2,
        known_cost_usd: 0.21,
        unknown_cost_calls: 1,
      },
    ]);
  });

  it('counts calls of unknown cost apart, never as zero, and keeps the known part', async () => {
    const sink = new StoreSessionSink(store);
    // A turn rebuilt from a refused generation (no usage reported) and a model with no price.
    const noUsage = turn({ input_tokens: 0, output_tokens: 0, usage_unknown: true, cost_usd: null });
    await sink.append(batch('run_a', 'inbox', [turn(), noUsage]));
    await sink.append(batch('run_a', 'inbox', [turn({ model_id: 'mystery', cost_usd: null }), turn()]));
    // A record written before the known part was kept: unpriced, so all of its calls are unknown.
    await store.create(USAGE, {
      id: 'usage_old',
      run_id: 'run_old',
      workflow_id: 'inbox',
      model_id: 'mystery',
      day: '2026-03-10',
      input_tokens: 10,
      output_tokens: 1,
      cost_usd: null,
      priced: false,
      calls: 2,
      updated_at: '2026-03-10T09:00:00.000Z',
    });

    expect(await getRecord(store, USAGE, UsageRecordSchema, usageId('run_a', 'gpt-4o-mini'))).toMatchObject({
      calls: 3,
      cost_usd: null,
      priced: false,
      known_cost_usd: 0.42,
      unknown_cost_calls: 1,
    });
    expect(await usageByWorkflowDay(store)).toEqual([
      expect.objectContaining({ calls: 6, cost_usd: null, known_cost_usd: 0.42, unknown_cost_calls: 4 }),
    ]);
  });
});

describe('the recorder', () => {
  it('keeps what a failed write held and writes it, in order, with the next batch; the run goes on', async () => {
    const landed: string[] = [];
    const errors: unknown[] = [];
    let failNext = true;
    const recorder = new SessionRecorder(
      {
        append: async (b) => {
          if (failNext) {
            failNext = false;
            throw new Error('store unavailable');
          }
          landed.push(...b.entries.map((e) => (e as ToolEntry).tool_use_id));
        },
      },
      { runId: 'run_1', workflowId: 'inbox', onError: (e) => errors.push(e) },
    );
    await recorder.record(toolCall(1));
    await expect(recorder.flush()).resolves.toBeUndefined();
    await recorder.record(toolCall(2));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(landed).toEqual(['t1', 't2']);
  });

  it('writes a full batch without waiting for the end of the node', async () => {
    const batches: number[] = [];
    const recorder = new SessionRecorder(
      { append: async (b) => void batches.push(b.entries.length) },
      { runId: 'run_1', workflowId: 'inbox', batchSize: 3 },
    );
    for (let i = 0; i < 7; i++) await recorder.record(toolCall(i));
    await recorder.flush();
    expect(batches).toEqual([3, 3, 1]);
  });
});

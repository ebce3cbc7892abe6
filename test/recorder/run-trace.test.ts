import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { costOf } from '../../shared/recorder/prices.ts';
import { readSession, usageId } from '../../shared/recorder/store-sink.ts';
import {
  SESSIONS,
  USAGE,
  UsageRecordSchema,
  type PauseEntry,
  type TraceEntry,
} from '../../shared/recorder/trace.ts';
import { inspectRun, usageByWorkflowDay } from '../../shared/recorder/views.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { getRecord } from '../../shared/store/records.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { executorScript } from '../support/scripted-model.ts';
import { countingStore, loggingStore, MeteredModel } from './helpers.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const sure = executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'a newsletter' }));
const unsure = executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'cannot tell' }));

function kinds(entries: readonly TraceEntry[]): string[] {
  return entries.map((e) =>
    e.kind === 'tool' ? `tool:${e.tool}` : e.kind.startsWith('node') ? `${e.kind}:${e.node}` : e.kind,
  );
}

describe('the session recorder on a run', () => {
  it('records every model turn and tool call in order, with tokens, cost and timings', async () => {
    const model = new MeteredModel(sure, 'gpt-4o-mini');
    fixture = await engineFixture({
      messages: [
        mail({ from: 'news@digest.example', subject: 'Weekly digest' }),
        mail({ from: 'deals@shop.example', subject: 'Sale' }),
      ],
      model: () => model,
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    expect(run.status).toBe('completed');

    const session = await readSession(fixture.store, run.id);
    expect(session).toMatchObject({ run_id: run.id, workflow_id: 'inbox', dropped: 0 });
    const entries = session!.entries;
    expect(kinds(entries)).toEqual([
      'node_start:trigger',
      'node_end:trigger',
      'node_start:executor',
      'model',
      'tool:fetch_items',
      'model',
      'tool:submit_action',
      'tool:submit_action',
      'model',
      'tool:fetch_items',
      'model',
      'tool:finish_batch',
      'model',
      'node_end:executor',
      'node_start:completer',
      'node_end:completer',
    ]);

    const turns = entries.filter((e) => e.kind === 'model');
    expect(turns.map((t) => t.stop_reason)).toEqual(['toolUse', 'toolUse', 'toolUse', 'toolUse', 'endTurn']);
    expect(turns.map((t) => [t.input_tokens, t.output_tokens])).toEqual(
      model.usage.map((u) => [u.inputTokens, u.outputTokens]),
    );
    for (const [i, turn] of turns.entries()) {
      const usage = model.usage[i]!;
      expect(turn).toMatchObject({ node: 'executor', model_id: 'gpt-4o-mini' });
      expect(turn.cost_usd).toBe(costOf('gpt-4o-mini', usage));
      expect(turn.cost_usd).toBeGreaterThan(0);
      expect(turn.input_messages).toBeGreaterThan(0);
      expect(turn.ms).toBeGreaterThanOrEqual(0);
    }
    expect(turns[0]!.output).toBe('fetch_items({})');
    expect(turns.at(-1)!.output).toBe('done');

    const tools = entries.filter((e) => e.kind === 'tool');
    const submits = tools.filter((t) => t.tool === 'submit_action');
    expect(submits.map((t) => JSON.parse(t.input))).toEqual([
      expect.objectContaining({ action: 'archive', confidence: 0.9 }),
      expect.objectContaining({ action: 'archive', confidence: 0.9 }),
    ]);
    expect(tools[0]!.output).toContain('Weekly digest');
    expect(tools.every((t) => t.status === 'success' && t.ms >= 0)).toBe(true);

    const usage = await getRecord(fixture.store, USAGE, UsageRecordSchema, usageId(run.id, 'gpt-4o-mini'));
    expect(usage).toMatchObject({
      run_id: run.id,
      workflow_id: 'inbox',
      model_id: 'gpt-4o-mini',
      day: new Date().toISOString().slice(0, 10),
      calls: 5,
      priced: true,
      input_tokens: model.usage.reduce((s, u) => s + u.inputTokens, 0),
      output_tokens: model.usage.reduce((s, u) => s + u.outputTokens, 0),
    });
    expect(usage!.cost_usd).toBeCloseTo(
      turns.reduce((s, t) => s + t.cost_usd!, 0),
      9,
    );
  });

  it('keeps writes per run flat however many items the run handles', async () => {
    const writesFor = async (count: number) => {
      const messages = Array.from({ length: count }, (_, i) =>
        mail({ from: `n${i}@digest.example`, subject: `Digest ${i}` }),
      );
      const base = await engineFixture({ messages, model: () => new MeteredModel(sure, 'gpt-4o-mini') });
      const counted = countingStore(base.store);
      await startRun({ ...base.deps, store: counted.store }, 'inbox', manual);
      await base.cleanup();
      return [counted.writes.get(SESSIONS), counted.writes.get(USAGE)];
    };
    // One session write when the graph's invocation ends, one usage write per model per flush.
    expect(await writesFor(2)).toEqual([1, 1]);
    expect(await writesFor(9)).toEqual([1, 1]);
  });

  it("writes a run's trace as new chunks only: one create per batch, no session record updated or written twice", async () => {
    const messages = Array.from({ length: 60 }, (_, i) =>
      mail({ from: `n${i}@digest.example`, subject: `Digest ${i}` }),
    );
    fixture = await engineFixture({ messages, model: () => new MeteredModel(sure, 'gpt-4o-mini') });
    const logged = loggingStore(fixture.store);
    const run = await startRun({ ...fixture.deps, store: logged.store }, 'inbox', manual);
    expect(run.status).toBe('completed');

    const writes = logged.calls.filter((c) => c.collection === SESSIONS && c.op !== 'get');
    expect(writes.length).toBeGreaterThan(1); // a full batch mid-run, besides the graph's end
    expect(writes.every((c) => c.op === 'create')).toBe(true);
    expect(new Set(writes.map((c) => c.id)).size).toBe(writes.length);
    // A fresh run starts its trace: no chunk is read to find where it ends.
    expect(logged.calls.filter((c) => c.collection === SESSIONS && c.op === 'get')).toHaveLength(0);
    const session = (await readSession(fixture.store, run.id))!;
    expect(session.entries.filter((e) => e.kind === 'tool' && e.tool === 'submit_action')).toHaveLength(60);
  });

  it('prices an unknown model id as null and flags it, in the trace, the usage and the sums', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'One' })],
      model: () => new MeteredModel(sure, 'some-new-model'),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    const turns = (await readSession(fixture.store, run.id))!.entries.filter((e) => e.kind === 'model');
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((t) => t.cost_usd === null)).toBe(true);
    expect(
      await getRecord(fixture.store, USAGE, UsageRecordSchema, usageId(run.id, 'some-new-model')),
    ).toMatchObject({ priced: false, cost_usd: null, calls: turns.length });
    expect(await usageByWorkflowDay(fixture.store)).toEqual([
      expect.objectContaining({ workflow_id: 'inbox', cost_usd: null, calls: turns.length }),
    ]);
  });

  it('shows a run that paused and resumed in another process as one trace: pause, answers, resume', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'Partnership' }),
        mail({ from: 'b@x.example', subject: 'Invoice' }),
      ],
      model: () => new MeteredModel(unsure, 'handoff-offline'),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    expect(run.status).toBe('waiting');

    // Another process: its own store handle and engine on the same state.
    const later: EngineDeps = { ...fixture.deps, store: new JsonFileStore(path.join(fixture.dir, 'state')) };
    const [first, second] = (await listPending(later.store)).sort((a, b) =>
      a.subject.localeCompare(b.subject),
    );
    await decide(later, first!.id, 'file_ticket', 'bills go to accounts');
    // The pause left where the trace goes on; the resume appends there without looking.
    expect((await getRun(later.store, run.id)).trace_tail).toEqual({ next: 1, chars: expect.any(Number) });
    const logged = loggingStore(later.store);
    const done = await decide({ ...later, store: logged.store }, second!.id, 'skip', null);
    expect(done.run_status).toBe('completed');
    const runChunkReads = logged.calls.filter(
      (c) => c.collection === SESSIONS && c.op === 'get' && c.id?.startsWith(run.id),
    );
    expect(runChunkReads).toEqual([]);

    const entries = (await readSession(later.store, run.id))!.entries;
    const flow = kinds(entries).filter((k) => k !== 'model');
    expect(flow).toEqual([
      'node_start:trigger',
      'node_end:trigger',
      'node_start:executor',
      'tool:fetch_items',
      'tool:submit_action',
      'tool:submit_action',
      'tool:fetch_items',
      'pause',
      'node_end:executor',
      'resume',
      'node_start:executor',
      'tool:finish_batch',
      'node_end:executor',
      'node_start:completer',
      'node_end:completer',
    ]);
    const pause = entries.find((e): e is PauseEntry => e.kind === 'pause');
    expect(pause).toMatchObject({ node: 'executor', name: 'handoff_decisions' });
    expect(JSON.parse(pause!.reason).item_ids).toHaveLength(2);
    expect(
      entries
        .filter((e) => e.kind === 'node_end' && e.node === 'executor')
        .map((e) => e.kind === 'node_end' && e.status),
    ).toEqual(['INTERRUPTED', 'COMPLETED']);
    const submits = entries.filter((e) => e.kind === 'tool' && e.tool === 'submit_action');
    expect(submits.every((e) => e.kind === 'tool' && e.output.includes('set aside'))).toBe(true);
    expect(submits.map((e) => e.kind === 'tool' && e.status)).toEqual(['cancelled', 'cancelled']);

    const trace = await inspectRun(later.store, run.id);
    const around = trace.entries.slice(
      trace.entries.findIndex((e) => e.kind === 'pause'),
      trace.entries.findIndex((e) => e.kind === 'resume') + 1,
    );
    // Each answer woke the learner: its turns (kept in a record of their own) follow the answer.
    const byLearner = (e: (typeof around)[number]) => 'node' in e && e.node === 'learner';
    expect(around.findIndex(byLearner)).toBeGreaterThan(around.findIndex((e) => e.kind === 'answer'));
    expect(around.filter((e) => !byLearner(e)).map((e) => e.kind)).toEqual([
      'pause',
      'node_end',
      'answer',
      'answer',
      'resume',
    ]);
    expect(around.filter((e) => e.kind === 'answer')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          subject: 'Invoice',
          action: 'file_ticket',
          note: 'bills go to accounts',
          by: 'human',
        }),
        expect.objectContaining({ subject: 'Partnership', action: 'skip', by: 'human' }),
      ]),
    );
    expect(trace.run.status).toBe('completed');
    const learnerTools = around.filter((e) => byLearner(e) && e.kind === 'tool').length;
    expect(learnerTools).toBeGreaterThan(0);
    expect(trace.totals).toMatchObject({ cost_usd: 0, tool_calls: 5 + learnerTools });
  });
});

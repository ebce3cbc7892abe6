import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { printInspect } from '../../shared/cli/commands/inspect.ts';
import { printUsage } from '../../shared/cli/commands/usage.ts';
import { NotFoundError } from '../../shared/errors/index.ts';
import { StoreSessionSink } from '../../shared/recorder/store-sink.ts';
import type { ModelEntry, TraceEntry } from '../../shared/recorder/trace.ts';
import { createRun } from '../../shared/runs/lifecycle.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';

let dir: string;
let store: JsonFileStore;
let out: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-inspect-'));
  store = new JsonFileStore(dir);
  out = '';
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
});
afterEach(async () => {
  jest.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 2, 10, 9, 0, s)).toISOString();

async function seededRun(): Promise<string> {
  const run = await createRun(store, 'inbox', { kind: 'manual', detail: null });
  const entries: TraceEntry[] = [
    { kind: 'node_start', at: at(0), node: 'executor' },
    {
      kind: 'model',
      at: at(1),
      node: 'executor',
      model_id: 'gpt-4o-mini',
      ms: 12,
      input_messages: 1,
      input_chars: 800,
      input_tokens: 200,
      output_tokens: 10,
      cost_usd: 0.000036,
      stop_reason: 'toolUse',
      output: 'fetch_items({})',
    },
    {
      kind: 'tool',
      at: at(2),
      node: 'executor',
      tool: 'fetch_items',
      tool_use_id: 't1',
      input: '{}',
      output: '{"items":[{"id":"m1","subject":"Invoice"}]}',
      status: 'success',
      ms: 3,
    },
    {
      kind: 'pause',
      at: at(3),
      node: 'executor',
      interrupt_id: 'i1',
      name: 'handoff_decisions',
      reason: '{"item_ids":["m1"]}',
    },
    { kind: 'node_end', at: at(3), node: 'executor', ms: 3000, status: 'INTERRUPTED' },
    { kind: 'resume', at: at(50), node: 'executor', interrupt_ids: ['i1'] },
  ];
  await new StoreSessionSink(store).append({ runId: run.id, workflowId: 'inbox', entries });
  return run.id;
}

describe('handoff inspect', () => {
  it('--json prints the run, its ordered entries and totals', async () => {
    const runId = await seededRun();
    await printInspect(store, runId, { json: true });
    const trace = JSON.parse(out);
    expect(Object.keys(trace).sort()).toEqual(['dropped', 'entries', 'run', 'totals']);
    expect(trace.run).toMatchObject({ id: runId, workflow_id: 'inbox', status: 'running' });
    expect(trace.entries.map((e: TraceEntry) => e.kind)).toEqual([
      'node_start',
      'model',
      'tool',
      'pause',
      'node_end',
      'resume',
    ]);
    expect(trace.entries[2]).toMatchObject({ tool: 'fetch_items', input: '{}', ms: 3, status: 'success' });
    expect(trace.totals).toEqual({
      model_calls: 1,
      tool_calls: 1,
      input_tokens: 200,
      output_tokens: 10,
      cost_usd: 0.000036,
      known_cost_usd: 0.000036,
      unknown_cost_calls: 0,
    });
  });

  it('prints one line per step for people, with inputs, outputs, timings, the pause and the resume', async () => {
    const runId = await seededRun();
    await printInspect(store, runId, {});
    expect(out).toContain(`Run ${runId} · workflow inbox · running`);
    expect(out).toMatch(
      /09:00:01\.000 {2}\s*model gpt-4o-mini → toolUse · 200 in \/ 10 out · \$0\.000036 · 12 ms/,
    );
    expect(out).toContain('tool fetch_items · success · 3 ms');
    expect(out).toContain('out: {"items":[{"id":"m1","subject":"Invoice"}]}');
    expect(out).toContain('⏸ paused at executor: handoff_decisions {"item_ids":["m1"]}');
    expect(out).toContain('⏵ resumed executor');
    expect(out).toContain('1 model turn · 1 tool call · 200 tokens in / 10 out · $0.000036');
  });

  it('says so for a run with no trace, and names an unknown run', async () => {
    const run = await createRun(store, 'inbox', { kind: 'manual', detail: null });
    await printInspect(store, run.id, {});
    expect(out).toContain('No trace was recorded for this run.');
    await expect(printInspect(store, 'run_nope', {})).rejects.toThrow(NotFoundError);
  });
});

describe('handoff usage', () => {
  it('--json prints exactly workflow_id, day, tokens, cost and calls per workflow and day', async () => {
    await seededRun();
    await printUsage(store, { json: true });
    expect(JSON.parse(out)).toEqual([
      {
        workflow_id: 'inbox',
        day: '2026-03-10',
        input_tokens: 200,
        output_tokens: 10,
        cost_usd: 0.000036,
        calls: 1,
        known_cost_usd: 0.000036,
        unknown_cost_calls: 0,
      },
    ]);
  });

  it('prints a table for people, and a hint when nothing is recorded', async () => {
    await printUsage(store, {});
    expect(out).toBe('No model calls recorded yet.\n');
    out = '';
    await seededRun();
    await printUsage(store, {});
    const [header, row] = out.trim().split('\n');
    expect(header).toMatch(/^DAY\s+WORKFLOW\s+CALLS\s+TOKENS IN\s+TOKENS OUT\s+COST \(USD\)$/);
    expect(row).toMatch(/^2026-03-10\s+inbox\s+1\s+200\s+10\s+0\.000036$/);
  });

  it('shows unknown cost apart, never as $0: a turn with no usage reported, a model with no price', async () => {
    const runId = await seededRun();
    const unknownTurn = (s: number, over: Partial<ModelEntry>): ModelEntry => ({
      kind: 'model',
      at: at(s),
      node: 'executor',
      model_id: 'gpt-4o-mini',
      ms: 4,
      input_messages: 3,
      input_chars: 900,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: null,
      stop_reason: 'toolUse',
      output: 'submit_action({})',
      ...over,
    });
    await new StoreSessionSink(store).append({
      runId,
      workflowId: 'inbox',
      entries: [
        unknownTurn(51, { usage_unknown: true }),
        unknownTurn(52, { model_id: 'mystery', input_tokens: 300, output_tokens: 20 }),
      ],
    });

    await printUsage(store, { json: true });
    expect(JSON.parse(out)).toEqual([
      expect.objectContaining({ calls: 3, cost_usd: null, known_cost_usd: 0.000036, unknown_cost_calls: 2 }),
    ]);
    out = '';
    await printUsage(store, {});
    const lines = out.trim().split('\n');
    expect(lines[1]).toMatch(/\s0\.000036 \+ 2 turns of unknown cost$/);
    expect(lines[2]).toMatch(/^unknown cost: the endpoint reported no token usage/);
    out = '';
    await printInspect(store, runId, {});
    expect(out).toContain(
      'model gpt-4o-mini → toolUse · tokens and cost unknown (the endpoint reported no usage)',
    );
    expect(out).toContain('model mystery → toolUse · 300 in / 20 out · unpriced');
    expect(out).toContain('· $0.000036 + 2 turns of unknown cost');
    expect(out).not.toContain('$0.000000');
  });
});

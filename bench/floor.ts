/**
 * The bare Strands floor: a plain Strands Agent with the executor's system prompt, context
 * window and offline model, and tools of the same names that answer from memory. It makes
 * the same model turns and tool calls as a Handoff run over the same inbox, with no store,
 * no gate and no recorder, so its time per item is what the agent loop alone costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { EXECUTOR_WINDOW } from '../shared/agents/executor/executor.ts';
import { PagedWindow } from '../shared/agents/executor/paged-window.ts';
import { executorPrompt } from '../shared/agents/executor/prompt.ts';
import { compactView } from '../shared/agents/executor/tools.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { MaildirSource } from '../shared/sources/maildir/maildir-source.ts';
import type { SourceItem } from '../shared/sources/source.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import type { Workflow } from '../shared/workflows/schema.ts';
import { generateInbox } from './generate-mail.ts';
import { TimedOfflineModel, modelTotals } from './instruments.ts';

/** What one floor run did and cost. */
export interface FloorRun {
  n: number;
  submitted: number;
  wall_ms: number;
  model_ms: number;
  turns: number;
  tool_calls: number;
  max_input_chars: number;
  mean_input_chars: number;
}

/** The floor's tools: the executor's names and input schemas, answered from `items` in memory. */
function floorTools(items: readonly SourceItem[], pageSize: number, submitted: Set<string>) {
  let cursor = 0;
  const byId = new Map(items.map((item) => [item.id, item]));
  return [
    tool({
      name: 'recall_rules',
      description: 'Lists the rules learned from the person for this workflow.',
      inputSchema: z.object({}),
      callback: () => ({ count: 0, rules: [] }),
    }),
    tool({
      name: 'fetch_items',
      description: `Returns the next page (up to ${pageSize}) of items not handled yet, as compact views.`,
      inputSchema: z.object({}),
      callback: () => {
        const page = items.slice(cursor, cursor + pageSize);
        cursor += page.length;
        return { items: page.map(compactView), done: page.length === 0 };
      },
    }),
    tool({
      name: 'read_item',
      description: 'Returns the full text of one fetched item by id.',
      inputSchema: z.object({ item_id: z.string() }),
      callback: ({ item_id }) => {
        const item = byId.get(item_id);
        return item ? { ...compactView(item), text: item.text.slice(0, 4000) } : { error: 'unknown item' };
      },
    }),
    tool({
      name: 'submit_action',
      description: 'Proposes one action for one item, with your confidence (0-1) and reasoning.',
      inputSchema: z.object({
        item_id: z.string(),
        action: z.unknown(),
        confidence: z.unknown().optional(),
        reasoning: z.unknown().optional(),
        force_interrupt: z.unknown().optional(),
      }),
      callback: (input) => {
        submitted.add(input.item_id);
        return { item_id: input.item_id, outcome: 'acted', action: input.action };
      },
    }),
    tool({
      name: 'finish_batch',
      description: 'Call once, after every item has been submitted.',
      inputSchema: z.object({}),
      callback: () => ({ finished: true, counts: { acted: submitted.size } }),
    }),
  ];
}

/**
 * Runs the bare agent over `items` (already read) and times it. Only the agent loop is
 * timed: reading and parsing the mail happen before.
 */
export async function runFloor(
  workflow: Workflow,
  items: readonly SourceItem[],
  opts: { pageSize: number; threshold: number },
): Promise<FloorRun> {
  const model = new TimedOfflineModel();
  const submitted = new Set<string>();
  const started = performance.now();
  const agent = new Agent({
    model,
    systemPrompt: executorPrompt(workflow, opts.threshold),
    tools: floorTools(items, opts.pageSize, submitted),
    printer: false,
    toolExecutor: 'sequential',
    conversationManager: new PagedWindow(EXECUTOR_WINDOW),
  });
  await agent.invoke('Process the batch.');
  const wallMs = performance.now() - started;
  const totals = modelTotals([model]);
  return {
    n: items.length,
    submitted: submitted.size,
    wall_ms: wallMs,
    model_ms: totals.modelMs,
    turns: totals.turns,
    tool_calls: totals.toolCalls,
    max_input_chars: totals.maxInputChars,
    mean_input_chars: Math.round(totals.meanInputChars),
  };
}

/** The floor over the bench's seeded inbox of `n` messages, read from a temp Maildir first. */
export async function measureFloor(
  n: number,
  seed: number,
  opts: { pageSize: number; threshold: number },
): Promise<FloorRun> {
  const root = await mkdtemp(path.join(os.tmpdir(), `handoff-floor-${n}-`));
  try {
    const maildir = path.join(root, 'Maildir');
    await writeMaildir(maildir, generateInbox(n, seed).messages);
    const workflow = parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml');
    const source = new MaildirSource(maildir);
    const items: SourceItem[] = [];
    for (const ref of await source.listRefs()) {
      const read = await source.read(ref);
      if (read.ok) items.push(read.item);
    }
    return await runFloor(workflow, items, opts);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

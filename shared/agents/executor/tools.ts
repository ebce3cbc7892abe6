import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { identify, knownOutcomes } from '../../actions/identify.ts';
import { claimOutcome } from '../../actions/outcomes.ts';
import { appendAudit } from '../../audit/audit.ts';
import { errorMessage } from '../../errors/index.ts';
import { SourceUnavailableError, type SourceItem } from '../../sources/source.ts';
import type { RunContext } from '../../run-state/run-context.ts';
import { submitDecided } from '../../gate/act-queue.ts';
import { keysForSender, rulesUnder } from '../../memory/rule-keys.ts';
import { sourceKeyOf } from '../../memory/source-key.ts';
import { plural } from '../../text/plural.ts';

const SNIPPET = 280;

/** The compact view the model sees: ids and a snippet, never the whole text. */
export function compactView(item: SourceItem) {
  return {
    id: item.id,
    from: item.sender.address,
    name: item.sender.name,
    subject: item.subject,
    snippet: item.text.replace(/\s+/g, ' ').trim().slice(0, SNIPPET),
    hints: item.hints,
  };
}

/** Lists the source once per process; the cursor in appState says how far the run got. */
async function refsOf(ctx: RunContext): Promise<string[]> {
  ctx.refs ??= await ctx.source.listRefs();
  return ctx.refs;
}

/** Reads refs from the cursor until a page of unhandled items is full. */
export async function nextPage(ctx: RunContext): Promise<SourceItem[]> {
  const refs = await refsOf(ctx);
  const page: SourceItem[] = [];
  let cursor = ctx.ledger.cursor();
  while (page.length < ctx.pageSize && cursor < refs.length) {
    // The rest of the page is read before it is placed, so its claims are read in one request;
    // a source that reads in batches reads it in one call (one round trip).
    const chunk = refs.slice(cursor, cursor + ctx.pageSize - page.length);
    cursor += chunk.length;
    const reads = ctx.source.readMany ? await ctx.source.readMany(chunk) : await readEach(ctx.source, chunk);
    const items = reads.flatMap((read) => (read.ok ? [read.item] : []));
    const known = items.length > 1 ? await knownOutcomes(ctx.store, ctx.workflow.id, items) : undefined;
    for (const [i, read] of reads.entries()) {
      if (!read.ok) {
        if (!read.gone) await recordUnparseable(ctx, chunk[i]!, read.reason); // gone: nothing to record
        continue;
      }
      const sighting = await identify(ctx.store, ctx.workflow.id, ctx.runId, read.item, ctx.items, known);
      if (sighting.kind === 'copy') await recordDuplicate(ctx, read.item, sighting.of, sighting.key);
      if (sighting.kind !== 'new' || ctx.held.has(sighting.item.id)) continue;
      ctx.items.set(sighting.item.id, sighting.item);
      page.push(sighting.item);
    }
  }
  await readRulesFor(ctx, page);
  ctx.ledger.setCursor(cursor);
  return page;
}

/** Keyed rules: the rules that may fire on a page's items, by their senders' keys not read yet (one batched read). */
async function readRulesFor(ctx: RunContext, page: readonly SourceItem[]): Promise<void> {
  if (!ctx.ruleKeys) return;
  const read = ctx.ruleKeys.read;
  const sourceKey = sourceKeyOf(ctx.workflow);
  const keys = [
    ...new Set(page.flatMap((item) => keysForSender(ctx.workflow.id, item.sender.address, sourceKey))),
  ].filter((key) => !read.has(key));
  if (keys.length === 0) return;
  const rules = await rulesUnder(ctx.store, keys);
  for (const key of keys) read.add(key);
  const known = new Set(ctx.rules.map((r) => r.id));
  ctx.rules.push(...rules.filter((r) => !known.has(r.id)));
}

async function readEach(source: RunContext['source'], refs: readonly string[]) {
  const reads = [];
  for (const ref of refs) reads.push(await source.read(ref));
  return reads;
}

async function recordUnparseable(ctx: RunContext, ref: string, reason: string): Promise<void> {
  const itemId = `unparseable:${ref.split('/').pop()}`;
  const claim = await claimOutcome(ctx.store, {
    workflow_id: ctx.workflow.id,
    item_id: itemId,
    run_id: ctx.runId,
    action: null,
    status: 'unparseable',
  });
  if (!claim) return;
  await appendAudit(ctx.store, {
    run_id: ctx.runId,
    workflow_id: ctx.workflow.id,
    item_id: itemId,
    outcome: 'unparseable',
    action: null,
    decided_by: null,
    detail: `${ref}: ${reason}; left alone`,
  });
  ctx.emit('failed', `Left alone an unparseable message (${reason})`, { ref });
}

/** A byte-identical copy of an item already offered: one item, so the copy is only recorded. */
async function recordDuplicate(
  ctx: RunContext,
  copy: SourceItem,
  of: SourceItem,
  key: string,
): Promise<void> {
  const claim = await claimOutcome(ctx.store, {
    workflow_id: ctx.workflow.id,
    item_id: key,
    run_id: ctx.runId,
    action: null,
    status: 'duplicate',
  });
  if (!claim) return;
  await appendAudit(ctx.store, {
    run_id: ctx.runId,
    workflow_id: ctx.workflow.id,
    item_id: key,
    outcome: 'duplicate',
    action: null,
    decided_by: null,
    detail: `${copy.ref}: a copy of ${of.id} (${of.ref}), handled as one item; left alone`,
  });
  ctx.emit('fetched', `Left alone a duplicate copy of ${of.subject || of.id}`, { ref: copy.ref });
}

/** Lists the rules learned from the person; the gate applies them. */
function recallRulesTool(ctx: RunContext) {
  return tool({
    name: 'recall_rules',
    description: ctx.ruleKeys
      ? 'Lists the rules learned from the person that can apply to the items fetched so far (read with each page). The gate applies them for you.'
      : 'Lists the rules learned from the person for this workflow. The gate applies them for you.',
    inputSchema: z.object({}),
    callback: () => ({
      count: ctx.rules.length,
      rules: ctx.rules.slice(0, 20).map((r) => ({ match: r.match, action: r.action, source: r.source })),
    }),
  });
}

function fetchItemsTool(ctx: RunContext) {
  return tool({
    name: 'fetch_items',
    description: `Returns the next page (up to ${ctx.pageSize}) of items not handled yet, as compact views. An empty page means the batch is done.`,
    inputSchema: z.object({}),
    callback: async () => {
      let page: SourceItem[];
      try {
        page = await nextPage(ctx);
      } catch (error) {
        // Items that cannot be read end the run (gate-hook.ts): a batch never finishes as if empty.
        ctx.sourceLost ??=
          error instanceof SourceUnavailableError
            ? error
            : new SourceUnavailableError(`the items could not be read: ${errorMessage(error)}`, {
                cause: error,
              });
        throw ctx.sourceLost;
      }
      ctx.emit('fetched', `Fetched ${plural(page.length, 'item')}`, { count: page.length });
      return { items: page.map(compactView), done: page.length === 0 };
    },
  });
}

/** read_item: the full text of a fetched item, for the executor and its specialists. */
export function readItemTool(ctx: RunContext) {
  return tool({
    name: 'read_item',
    description: 'Returns the full text of one fetched item by id.',
    inputSchema: z.object({ item_id: z.string() }),
    callback: ({ item_id }) => {
      const item = ctx.items.get(item_id);
      return item
        ? { ...compactView(item), text: item.text.slice(0, 4000) }
        : { error: `unknown item ${item_id}` };
    },
  });
}

/**
 * submit_action: the only tool that changes anything, for the executor and every
 * specialist. The gate stands before it (attached to each agent that has it); the body
 * carries out only what the gate cleared, in the name of the agent that proposed it.
 */
export function submitActionTool(ctx: RunContext) {
  return tool({
    name: 'submit_action',
    description:
      'Proposes one action for one item, with your confidence (0-1) and reasoning. The gate may act, ask the person, or apply a rule.',
    inputSchema: z.object({
      item_id: z.string(),
      // Lenient on purpose: the gate reads a malformed field as doubt, it is never a reason to skip the gate.
      action: z.unknown(),
      confidence: z.unknown().optional(),
      reasoning: z.unknown().optional(),
      force_interrupt: z.unknown().optional(),
    }),
    callback: async (input, toolContext) => {
      const toolUseId = toolContext!.toolUse.toolUseId;
      const choice = ctx.verdicts.get(toolUseId);
      const item = ctx.items.get(input.item_id);
      if (!choice || !item)
        return { item_id: input.item_id, outcome: 'not_acted', detail: 'the gate did not clear it' };
      ctx.verdicts.delete(toolUseId);
      const result = await submitDecided(ctx, item, choice);
      if (!result) return { item_id: item.id, outcome: 'queued', action: choice.action };
      return { item_id: item.id, outcome: result.outcome, action: choice.action };
    },
  });
}

function finishBatchTool(ctx: RunContext) {
  return tool({
    name: 'finish_batch',
    description: 'Call once, after every item has been submitted. Unsure items are asked about together.',
    inputSchema: z.object({}),
    callback: () => ({ finished: true, counts: ctx.ledger.counts() }),
  });
}

/**
 * The executor's tools. submit_action is the only one that changes anything, and the gate
 * stands before it; `routeItem` (route_item) is there when the workflow names specialists.
 */
export function executorTools(ctx: RunContext, routeItem?: Tool): Tool[] {
  return [
    recallRulesTool(ctx),
    fetchItemsTool(ctx),
    readItemTool(ctx),
    ...(routeItem ? [routeItem] : []),
    submitActionTool(ctx),
    finishBatchTool(ctx),
  ];
}

import { tool, type Agent, type Model, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { appendAudit } from '../../audit/audit.ts';
import { UnhandledIntentError } from '../../handoffs/errors.ts';
import type { HandoffCallItem, HandoffOutputItem, RunItem } from '../../handoffs/items.ts';
import { handoffRoute, type HandoffRoute, type RouteMatch } from '../../handoffs/route.ts';
import { setAside } from '../../gate/gate-hook.ts';
import { SKIP } from '../../workflows/schema.ts';
import type { RunContext } from '../../run-state/run-context.ts';
import { EXECUTOR } from '../../run-state/run-ledger.ts';
import { Specialist } from './specialist.ts';
import { errorMessage } from '../../errors/index.ts';

/** One handoff of an item, as the run's trace and the audit show it. */
export interface ItemHandoff {
  readonly itemId: string;
  readonly call: HandoffCallItem;
  readonly output: HandoffOutputItem;
}

/** What the specialist did with the item after the handoff (its tool calls and results). */
export interface ItemHandled {
  readonly itemId: string;
  readonly agent: string;
  readonly items: readonly RunItem[];
}

/** What the executor's model reads back from route_item. */
export type RouteItemResult = { item_id: string; handed_to?: string; error?: string };

export interface DeskObserver {
  handedOff?(handoff: ItemHandoff): void | Promise<void>;
  handled?(handled: ItemHandled): void | Promise<void>;
}

/** The intent the executor gives route_item: one per specialist, named after it. */
export function intentSchema(name: string) {
  return z.object({ kind: z.literal(name) });
}

/**
 * The run's specialists and the route to them. Routing is code-orchestrated: the
 * executor names an intent for an item (its route_item call), and a `HandoffRoute` maps
 * the intent to the specialist in plain code; no model call is spent on choosing the
 * agent. Each handoff is one-way for its item: the specialist decides it, through the
 * same gate, and the executor may not act on it again.
 */
export class SpecialistDesk {
  readonly specialists: readonly Specialist[];
  readonly route: HandoffRoute<RunContext>;
  private readonly byAgent: Map<Agent, Specialist>;
  private readonly observers: DeskObserver[] = [];
  private handoffCount = 0;

  /** `fallback`: the model of specialists whose `model` is `fallback` (default: `model`). */
  constructor(
    private readonly ctx: RunContext,
    model: Model,
    fallback: Model = model,
  ) {
    this.specialists = (ctx.workflow.specialists ?? []).map(
      (spec) => new Specialist(ctx, spec.model === 'fallback' ? fallback : model, spec),
    );
    this.byAgent = new Map(this.specialists.map((s) => [s.agent, s]));
    this.route = this.specialists.reduce(
      (route, s) => route.when(intentSchema(s.name)).to(s.agent),
      handoffRoute<RunContext>(EXECUTOR),
    );
  }

  get names(): string[] {
    return this.specialists.map((s) => s.name);
  }

  /** Sees every handoff and what the specialist then did (the session recorder, tests). */
  observe(observer: DeskObserver): void {
    this.observers.push(observer);
  }

  /**
   * Hands one item to the specialist its intent routes to, and lets it decide the item.
   * Returns what the executor's model reads: who has the item now, or why nothing moved.
   */
  async handOff(call: {
    itemId: string;
    intent: string;
    note: string;
    toolUseId: string;
  }): Promise<RouteItemResult> {
    const { ctx } = this;
    const { itemId, intent, note, toolUseId } = call;
    const item = ctx.items.get(itemId);
    if (!item)
      return { item_id: itemId, error: `unknown item id "${itemId}": use an id fetch_items returned` };
    if (ctx.ledger.isDeferred(itemId))
      return { item_id: itemId, error: `item ${itemId} is already set aside for the person` };
    const owner = ctx.ledger.ownerOf(itemId);
    if (owner !== EXECUTOR)
      return { item_id: itemId, error: `item ${itemId} was already handed to ${owner}` };

    let match: RouteMatch;
    try {
      match = await this.route.resolve(
        { kind: intent },
        { context: ctx, newItems: [], handoffCount: this.handoffCount },
      );
    } catch (error) {
      if (!(error instanceof UnhandledIntentError)) throw error;
      return {
        item_id: itemId,
        error: `no specialist takes "${intent}" (specialists: ${this.names.join(', ')}); decide it yourself with submit_action`,
      };
    }
    const specialist = this.byAgent.get(match.target)!;
    const to = specialist.name;
    ctx.ledger.handOver(itemId, to);
    this.handoffCount += 1;

    const input = { item_id: itemId, intent, ...(note ? { reasoning: note } : {}) };
    const handoff: ItemHandoff = {
      itemId,
      call: {
        type: 'handoff_call',
        agent: EXECUTOR,
        source: EXECUTOR,
        target: to,
        toolUseId,
        input,
        via: 'route',
      },
      output: { type: 'handoff_output', agent: EXECUTOR, source: EXECUTOR, target: to, toolUseId },
    };
    await appendAudit(ctx.store, {
      run_id: ctx.runId,
      workflow_id: ctx.workflow.id,
      item_id: itemId,
      outcome: 'handed_off',
      action: null,
      decided_by: null,
      reasoning: note || null,
      detail: `${EXECUTOR} → ${to} (intent ${intent})`,
      agent: to,
      handoff: { from: EXECUTOR, to },
    });
    ctx.emit('handoff', `${EXECUTOR} → ${to}: ${item.subject}`, { item_id: itemId, from: EXECUTOR, to });
    for (const o of this.observers) await o.handedOff?.(handoff);

    let taken: { settled: boolean; items: RunItem[] };
    try {
      taken = await specialist.take(item, EXECUTOR, note);
    } catch (error) {
      // Its model or a tool failed: nothing was done to the item, and the person is asked (fail toward asking).
      const reason = errorMessage(error).split('\n')[0]!.slice(0, 300);
      ctx.emit('failed', `${to} could not decide ${item.subject}: ${reason}`, { item_id: itemId, agent: to });
      if (!ctx.ledger.isDeferred(itemId))
        await setAside(ctx, item, {
          action: SKIP,
          confidence: 0,
          reasoning: `${to} failed before deciding this item: ${reason}`,
          reason: 'undecided',
          agent: to,
        });
      return {
        item_id: itemId,
        handed_to: to,
        error: `${to} failed (${reason}); the item is set aside for the person`,
      };
    }
    if (!taken.settled && !ctx.ledger.isDeferred(itemId)) {
      // It ended its turn without a decision the gate could settle: fail toward asking.
      await setAside(ctx, item, {
        action: SKIP,
        confidence: 0,
        reasoning: `${to} ended without deciding this item: ${lastWords(taken.items)}`,
        reason: 'undecided',
        agent: to,
      });
    }
    for (const o of this.observers) await o.handled?.({ itemId, agent: to, items: taken.items });
    return { item_id: itemId, handed_to: to };
  }

  /** The executor's route_item tool: the intent is one of the specialists' names. */
  routeItemTool(): Tool {
    const names = this.names as [string, ...string[]];
    return tool({
      name: 'route_item',
      description: `Hands one item, for good, to the specialist that covers it (${names.join(', ')}). The specialist decides it through the same gate; you do not act on it again.`,
      inputSchema: z.object({
        item_id: z.string(),
        intent: z.enum(names).describe('The name of the specialist that covers the item.'),
        reasoning: z.string().optional().describe('Why the item belongs to that specialist (one line).'),
      }),
      callback: (input, toolContext) =>
        this.handOff({
          itemId: input.item_id,
          intent: input.intent,
          note: input.reasoning ?? '',
          toolUseId: toolContext!.toolUse.toolUseId,
        }),
    });
  }
}

/** What the specialist last said, for the person's question (its reasoning, if any). */
function lastWords(items: readonly RunItem[]): string {
  const said = items.findLast((i) => i.type === 'message' && i.role === 'assistant');
  return said?.type === 'message' ? said.text.slice(0, 300) : '(it said nothing)';
}

import { AfterToolsEvent, Agent, BeforeToolCallEvent, type Model } from '@strands-agents/sdk';
import { attachGate } from '../../gate/gate-hook.ts';
import type { GatePolicy } from '../../gate/verdict.ts';
import { itemsFromMessages, type RunItem } from '../../handoffs/items.ts';
import type { SourceItem } from '../../sources/source.ts';
import type { WorkflowSpecialist } from '../../workflows/schema.ts';
import type { RunContext } from '../../run-state/run-context.ts';
import { readItemTool, submitActionTool } from '../executor/tools.ts';
import { handedItemText, specialistPrompt } from './prompt.ts';
import { skillTexts } from '../../workflows/resolve.ts';

/**
 * One specialist of a run: an agent with read_item and submit_action, behind the same
 * gate as the executor (the run's threshold and rules, only its own actions, and the
 * run's one deferred list). It decides one handed-over item at a time, from a fresh
 * history, so what it costs per item does not grow with the batch.
 */
export class Specialist {
  readonly agent: Agent;
  private current: string | undefined;
  private settled = false;

  constructor(
    ctx: RunContext,
    model: Model,
    readonly spec: WorkflowSpecialist,
  ) {
    const policy = specialistPolicy(ctx.policy, spec);
    this.agent = new Agent({
      id: `specialist-${spec.name}`,
      name: spec.name,
      description: spec.description,
      model,
      systemPrompt: specialistPrompt(
        ctx.workflow,
        spec,
        [...policy.actions.keys()],
        policy.threshold,
        skillTexts(spec.skills, ctx.skills),
      ),
      tools: [readItemTool(ctx), submitActionTool(ctx)],
      printer: false,
      toolExecutor: 'sequential',
    });
    attachGate(this.agent, ctx, { agent: spec.name, policy });
    // After the gate: the item is settled once the gate let its action through or set it aside.
    this.agent.addHook(BeforeToolCallEvent, (event) => {
      const input = event.toolUse.input as { item_id?: unknown } | null;
      if (event.toolUse.name !== 'submit_action' || input?.item_id !== this.current) return;
      if (event.cancel === false || ctx.ledger.isDeferred(this.current!)) this.settled = true;
    });
    // A settled item ends the specialist's turn: no model call is spent on saying so.
    this.agent.addHook(AfterToolsEvent, (event) => {
      if (this.settled) event.endTurn = `Done with item ${this.current}.`;
    });
  }

  get name(): string {
    return this.spec.name;
  }

  /**
   * Decides one item handed over by `from`. Returns what the specialist did, as run items,
   * and whether the gate settled the item (acted on it or set it aside).
   */
  async take(item: SourceItem, from: string, note: string): Promise<{ settled: boolean; items: RunItem[] }> {
    this.current = item.id;
    this.settled = false;
    this.agent.messages.splice(0, this.agent.messages.length);
    try {
      await this.agent.invoke(handedItemText(item, from, note));
    } finally {
      this.current = undefined;
    }
    return { settled: this.settled, items: itemsFromMessages(this.name, this.agent.messages.slice(1)) };
  }
}

/** The run's policy narrowed to the specialist's actions; the threshold and irreversibility stay. */
export function specialistPolicy(run: GatePolicy, spec: WorkflowSpecialist): GatePolicy {
  if (!spec.actions) return run;
  const allowed = new Set(spec.actions);
  return {
    threshold: run.threshold,
    actions: new Map([...run.actions].filter(([name]) => allowed.has(name))),
  };
}

import { Agent, type Model } from '@strands-agents/sdk';
import { PagedWindow } from './paged-window.ts';
import { attachGate } from '../../gate/gate-hook.ts';
import type { SpecialistDesk } from '../specialists/desk.ts';
import { executorPrompt } from './prompt.ts';
import { skillTexts } from '../../workflows/resolve.ts';
import type { RunContext } from '../../run-state/run-context.ts';
import { EXECUTOR } from '../../run-state/run-ledger.ts';
import { executorTools } from './tools.ts';

/** Recent messages kept before each model call (plus the task): two pages of calls and results. */
export const EXECUTOR_WINDOW = 4;

/**
 * The executor agent, with the gate attached. Its appState is the run's persisted state
 * (the ledger writes there); with specialists it also gets route_item.
 */
export function createExecutor(ctx: RunContext, model: Model, desk: SpecialistDesk | null = null): Agent {
  const agent = new Agent({
    id: EXECUTOR,
    name: EXECUTOR,
    model,
    systemPrompt: executorPrompt(
      ctx.workflow,
      ctx.policy.threshold,
      skillTexts(ctx.workflow.skills, ctx.skills),
    ),
    tools: executorTools(ctx, desk?.routeItemTool()),
    printer: false,
    toolExecutor: 'sequential',
    conversationManager: new PagedWindow(EXECUTOR_WINDOW),
  });
  ctx.ledger.persistIn(agent.appState);
  attachGate(agent, ctx);
  return agent;
}

import { Agent, type Model } from '@strands-agents/sdk';
import { PagedWindow } from './paged-window.ts';
import { attachGate } from '../../gate/gate-hook.ts';
import { executorPrompt } from './prompt.ts';
import type { RunContext } from './run-context.ts';
import { executorTools } from './tools.ts';

/** Recent messages kept before each model call (plus the task): two pages of calls and results. */
export const EXECUTOR_WINDOW = 4;

/** The executor agent, with the gate attached (here and only here). */
export function createExecutor(ctx: RunContext, model: Model): Agent {
  const agent = new Agent({
    id: 'executor',
    name: 'executor',
    model,
    systemPrompt: executorPrompt(ctx.workflow, ctx.policy.threshold),
    tools: executorTools(ctx),
    printer: false,
    toolExecutor: 'sequential',
    conversationManager: new PagedWindow(EXECUTOR_WINDOW),
  });
  attachGate(agent, ctx);
  return agent;
}

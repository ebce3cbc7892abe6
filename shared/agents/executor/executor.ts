import { Agent, SlidingWindowConversationManager, type Model } from '@strands-agents/sdk';
import { attachGate } from '../../gate/gate-hook.ts';
import { executorPrompt } from './prompt.ts';
import type { RunContext } from './run-context.ts';
import { executorTools } from './tools.ts';

/** Messages kept in the executor's window: a run works through bounded pages, never the whole inbox at once. */
export const EXECUTOR_WINDOW = 8;

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
    conversationManager: new SlidingWindowConversationManager({ windowSize: EXECUTOR_WINDOW }),
  });
  attachGate(agent, ctx);
  return agent;
}

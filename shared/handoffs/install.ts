import {
  AfterToolsEvent,
  BeforeToolCallEvent,
  FunctionTool,
  InvokeModelStage,
  type Agent,
  type LocalAgent,
  type Message,
  type Plugin,
} from '@strands-agents/sdk';
import { z } from 'zod';
import { HandoffCallbackError, HandoffConfigError, HandoffInputError, HandoffLimitError } from './errors.ts';
import { asHandoff, callOnHandoff, isEnabled, type Handoff } from './handoff.ts';
import { isRoute, type HandoffRoute } from './route.ts';
import { activeRun, type PendingTransfer, type RunControl } from './run-control.ts';
import { errorMessage } from '../errors/index.ts';

/** What `handoffs(...)` accepts: targets for the model to choose from, or a route that code follows. */
export type HandoffTargets<C = unknown> = readonly (Agent | Handoff<C>)[] | HandoffRoute<C>;

/** The handoffs an agent was configured with. */
export interface HandoffBinding {
  readonly handoffs: readonly Handoff<never>[];
  readonly route: HandoffRoute<never> | undefined;
}

const bindings = new WeakMap<object, HandoffBinding>();

/** The handoffs configured on `agent`, if any. */
export function handoffsOf(agent: object): HandoffBinding | undefined {
  return bindings.get(agent);
}

/**
 * A plugin that gives an agent its handoffs: `new Agent({ plugins: [handoffs([billing])] })`.
 * The SDK initialises plugins on the agent's first invocation.
 */
export function handoffs<C>(targets: HandoffTargets<C>): Plugin {
  const binding = bind(targets);
  return { name: 'strands-handoffs', initAgent: (agent) => install(agent, binding) };
}

/** The same, on an existing agent (useful for cycles: build every agent, then wire them). */
export function withHandoffs<A extends Agent, C>(agent: A, targets: HandoffTargets<C>): A {
  install(agent, bind(targets));
  return agent;
}

/** Text of the assistant message that ends the source agent's turn after a transfer. */
export function transferMarker(target: string): string {
  return `Transferred to ${target}.`;
}

function bind<C>(targets: HandoffTargets<C>): HandoffBinding {
  if (isRoute(targets)) return Object.freeze({ handoffs: [], route: targets as HandoffRoute<never> });
  const list = (targets as readonly (Agent | Handoff<C>)[]).map((t) => asHandoff(t) as Handoff<never>);
  const seen = new Set<string>();
  for (const h of list) {
    if (seen.has(h.toolName)) throw new HandoffConfigError(`two handoffs share the tool name ${h.toolName}`);
    seen.add(h.toolName);
  }
  return Object.freeze({ handoffs: Object.freeze(list), route: undefined });
}

function install(agent: LocalAgent, binding: HandoffBinding): void {
  if (bindings.has(agent)) throw new HandoffConfigError('this agent already has handoffs configured');
  bindings.set(agent, binding);
  if (binding.handoffs.length === 0) return;
  const byTool = new Map(binding.handoffs.map((h) => [h.toolName, h]));
  agent.toolRegistry.add(binding.handoffs.map(transferTool));

  // Before each model call: offer only the enabled targets (outside a run, none).
  agent.addMiddleware(InvokeModelStage.Input, async (context) => {
    const run = activeRun(context.invocationState, agent);
    const offered = new Set<string>();
    if (run) {
      for (const h of binding.handoffs) {
        try {
          if (await isEnabled(h, run.ctx(), run.segment.agent)) offered.add(h.toolName);
        } catch (error) {
          run.fail(
            new HandoffCallbackError(`enabled() for ${h.toolName} failed: ${messageOf(error)}`, {
              cause: error,
            }),
          );
        }
      }
      run.offered = offered;
    }
    return {
      ...context,
      toolSpecs: context.toolSpecs.filter((s) => !byTool.has(s.name) || offered.has(s.name)),
    };
  });

  agent.addHook(BeforeToolCallEvent, async (event) => {
    const h = byTool.get(event.toolUse.name);
    if (h) await intercept(event, h, activeRun(event.invocationState, agent));
  });

  // After the tool batch: a committed transfer whose tool succeeded ends the agent's turn loop.
  agent.addHook(AfterToolsEvent, (event) => {
    const run = activeRun(event.invocationState, agent);
    const pending = run?.pending;
    if (!run || !pending) return;
    if (pending.committed && succeeded(event.message, pending.toolUseId)) {
      event.endTurn = transferMarker(pending.handoff.targetName);
    } else run.pending = undefined;
  });
}

function transferTool(h: Handoff<never>): FunctionTool {
  return new FunctionTool({
    name: h.toolName,
    description: h.description,
    inputSchema: h.inputSchema,
    callback: () => ({ assistant: h.targetName }),
  });
}

/** Validates, notifies and claims a transfer; or rejects it (to the model, or by raising). */
async function intercept(event: BeforeToolCallEvent, h: Handoff<never>, run: RunControl | undefined) {
  if (!run) {
    event.cancel = `${h.toolName} works only when the agent runs through runWithHandoffs()`;
    return;
  }
  if (run.offered && !run.offered.has(h.toolName)) {
    event.cancel = `The handoff to ${h.targetName} is not available right now.`;
    return;
  }
  if (run.pending?.toolUseId === event.toolUse.toolUseId) return; // re-run after a resume: already claimed
  if (run.pending) {
    event.cancel = `Only one handoff per turn: already handing off to ${run.pending.handoff.targetName}.`;
    return;
  }
  if (run.handoffCount >= run.maxHandoffs) {
    event.cancel = `No more handoffs allowed in this run.`;
    run.fail(new HandoffLimitError(`more than ${run.maxHandoffs} handoffs in one run`));
    return;
  }
  const { toolUseId, input } = event.toolUse;
  const claim: PendingTransfer = { handoff: h, toolUseId, input, parsed: input, committed: false };
  run.pending = claim;
  const error = await validateAndNotify(run, h, claim);
  if (!error) {
    claim.committed = true;
    return;
  }
  run.pending = undefined;
  event.cancel = `The handoff to ${h.targetName} was rejected: ${error.message}`;
  if (h.policy.onError === 'raise') run.fail(error);
}

async function validateAndNotify(run: RunControl, h: Handoff<never>, claim: PendingTransfer) {
  if (h.inputType) {
    const parsed = h.inputType.safeParse(claim.input);
    if (!parsed.success) {
      const detail = z.prettifyError(parsed.error);
      return new HandoffInputError(
        `invalid arguments for ${h.toolName}: ${detail}`,
        h.toolName,
        parsed.error.issues,
      );
    }
    claim.parsed = parsed.data;
  }
  try {
    await callOnHandoff(h, run.ctx() as never, claim.parsed, () => run.inflightData(h.targetName));
    return undefined;
  } catch (error) {
    return new HandoffCallbackError(`onHandoff for ${h.toolName} failed: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

function succeeded(results: Message, toolUseId: string): boolean {
  return results.content.some(
    (b) => b.type === 'toolResultBlock' && b.toolUseId === toolUseId && b.status === 'success',
  );
}

function messageOf(error: unknown): string {
  return errorMessage(error);
}

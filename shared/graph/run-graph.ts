import { SessionManager, type Agent, type Model, type SnapshotStorage } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { createExecutor } from '../agents/executor/executor.ts';
import type { RunContext } from '../run-state/run-context.ts';
import { SpecialistDesk } from '../agents/specialists/desk.ts';
import type { RunTrigger } from '../records/runs.ts';
import { narrateGraph, narrateTools } from './narrator.ts';
import { CompleterNode } from './nodes/completer-node.ts';
import { TriggerNode, wasTriggered } from './nodes/trigger-node.ts';

/** Node ids are part of the persisted state: a paused run resumes only into the same ids. */
export const GRAPH_ID = 'handoff-run';
export const NODE_IDS = ['trigger', 'executor', 'completer'] as const;

export interface RunGraph {
  graph: Graph;
  executor: Agent;
  /** The workflow's specialists, which the executor hands items to; null when it names none. */
  desk: SpecialistDesk | null;
}

export interface RunGraphDeps {
  ctx: RunContext;
  trigger: RunTrigger;
  model: Model;
  /** The model of specialists with `model: fallback`; default `model`. */
  fallbackModel?: Model;
  snapshots: SnapshotStorage;
  hasNewItems: () => Promise<boolean>;
  /** Why a run with nothing new is skipped, in a person's words. */
  quietReason?: () => Promise<string>;
  complete: (executor: Agent) => Promise<string>;
}

/**
 * trigger → executor → completer, with the conditional edge. The gate stands before every
 * submit_action: the executor's, and its specialists', which run inside the executor node
 * (an item handed to one is decided there and then), so the node ids never change.
 */
export function buildRunGraph(deps: RunGraphDeps): RunGraph {
  const desk =
    (deps.ctx.workflow.specialists ?? []).length > 0
      ? new SpecialistDesk(deps.ctx, deps.model, deps.fallbackModel)
      : null;
  const executor = createExecutor(deps.ctx, deps.model, desk);
  narrateTools(executor, deps.ctx.emit);
  for (const specialist of desk?.specialists ?? []) narrateTools(specialist.agent, deps.ctx.emit);
  const graph = new Graph({
    id: GRAPH_ID,
    nodes: [
      new TriggerNode(deps.trigger, deps.hasNewItems, deps.quietReason),
      { agent: executor, preserveContext: true },
      new CompleterNode(() => deps.complete(executor)),
    ],
    edges: [{ source: 'trigger', target: 'executor', handler: wasTriggered }, ['executor', 'completer']],
    // The graph is saved once, when an invocation stops (a pause or a hand-over to the next
    // step), and that save rides on the run's own lifecycle write (RunSnapshotStorage).
    sessionManager: new SessionManager({
      sessionId: deps.ctx.runId,
      storage: { snapshot: deps.snapshots },
      multiAgentSaveLatestOn: 'invocation',
    }),
    maxSteps: 10,
  });
  narrateGraph(graph, deps.ctx.emit);
  return { graph, executor, desk };
}

import { AfterToolCallEvent, BeforeToolCallEvent, type Agent } from '@strands-agents/sdk';
import { AfterNodeCallEvent, BeforeNodeCallEvent, type Graph } from '@strands-agents/sdk/multiagent';
import type { FeedEvent } from '../events/feed.ts';

type Emit = (kind: FeedEvent['kind'], text: string, data?: Record<string, unknown>) => void;

/** Emits node_start/node_end for each graph node, with timings. */
export function narrateGraph(graph: Graph, emit: Emit): void {
  const started = new Map<string, number>();
  graph.addHook(BeforeNodeCallEvent, (event) => {
    started.set(event.nodeId, performance.now());
    emit('node_start', `${event.nodeId} started`, { node: event.nodeId });
  });
  graph.addHook(AfterNodeCallEvent, (event) => {
    const ms = Math.round(performance.now() - (started.get(event.nodeId) ?? performance.now()));
    emit('node_end', `${event.nodeId} finished`, {
      node: event.nodeId,
      ms,
      ...(event.error ? { error: event.error.message } : {}),
    });
  });
}

/** Emits tool_start/tool_end for each tool call of an agent, with timings. */
export function narrateTools(agent: Agent, emit: Emit): void {
  const started = new Map<string, number>();
  agent.addHook(BeforeToolCallEvent, (event) => {
    started.set(event.toolUse.toolUseId, performance.now());
    emit('tool_start', event.toolUse.name, {
      tool: event.toolUse.name,
      tool_use_id: event.toolUse.toolUseId,
    });
  });
  agent.addHook(AfterToolCallEvent, (event) => {
    const ms = Math.round(performance.now() - (started.get(event.toolUse.toolUseId) ?? performance.now()));
    started.delete(event.toolUse.toolUseId);
    emit('tool_end', event.toolUse.name, {
      tool: event.toolUse.name,
      tool_use_id: event.toolUse.toolUseId,
      ms,
    });
  });
}

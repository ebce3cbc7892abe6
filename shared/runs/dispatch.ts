import { BeforeNodeCallEvent, type Graph } from '@strands-agents/sdk/multiagent';
import { z } from 'zod';

/** The steps a run is split into when each graph node runs in its own process (a Lambda each). */
export const STEPS = ['executor', 'completer', 'resume'] as const;
export type Step = (typeof STEPS)[number];

/** The interrupt a graph raises before a node another process must run. */
export const DISPATCH_INTERRUPT = 'handoff_dispatch';

/** The dispatch interrupt names the node to run next; it is resumed with the same shape. */
export const DispatchReasonSchema = z.object({ node: z.enum(['executor', 'completer']) });
export type DispatchReason = z.infer<typeof DispatchReasonSchema>;

/** Sends a step of a run to the process that runs it (EventBridge on AWS). */
export interface Dispatcher {
  dispatch(step: { run_id: string; node: Step }): Promise<void>;
  /** Sends learning from an answer to the process that owns model calls; absent: learned where answered. */
  learn?(work: { decision_id: string }): Promise<void>;
  /**
   * Sends an answered item of a run that still waits to the process that acts (the resume
   * function on AWS), which carries it out at once; absent: carried out where answered.
   */
  carry?(work: { decision_id: string }): Promise<void>;
}

/**
 * In dispatch mode the graph stops before every node but the entry: the run is saved,
 * and the node's own process resumes it there. On resume the same hook returns.
 */
export function stopBeforeEachNode(graph: Graph): void {
  graph.addHook(BeforeNodeCallEvent, (event) => {
    if (event.nodeId === 'trigger') return;
    // A node picking up its own pause (the gate's questions) is already in the right process.
    if (event.state.node(event.nodeId)?.interruptedSnapshot) return;
    event.interrupt({ name: DISPATCH_INTERRUPT, reason: { node: event.nodeId } }); // its response is not read
  });
}

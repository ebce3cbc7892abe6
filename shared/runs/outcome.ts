import { Status, type MultiAgentResult } from '@strands-agents/sdk/multiagent';
import { z } from 'zod';
import { DECISIONS_INTERRUPT, DecisionsInterruptReasonSchema } from '../gate/gate-hook.ts';
import { errorMessage } from '../errors/index.ts';
import { DISPATCH_INTERRUPT, DispatchReasonSchema, type DispatchReason } from './dispatch.ts';

/** What a pass of the graph came to; the run loop applies it with one lifecycle transition. */
export type Outcome =
  | { kind: 'dispatch-next'; node: DispatchReason['node']; interruptId: string }
  | { kind: 'pause'; interruptId: string; itemIds: string[] }
  | { kind: 'finish' }
  | { kind: 'skip'; reason: string }
  | { kind: 'fail'; reason: string };

const TriggerVerdictSchema = z.object({ triggered: z.boolean(), reason: z.string().optional() });

/**
 * Reads a graph result as an outcome. Pure: it writes nothing. `resumed` is true when the
 * graph was resumed from a pause (its trigger passed before it paused).
 */
export function interpret(result: MultiAgentResult, resumed: boolean): Outcome {
  const dispatch = result.interrupts?.find((i) => i.name === DISPATCH_INTERRUPT);
  if (result.status === Status.INTERRUPTED && dispatch) {
    const reason = DispatchReasonSchema.safeParse(dispatch.reason);
    if (!reason.success) return fail(`cannot dispatch to node ${nodeOf(dispatch.reason)}`);
    return { kind: 'dispatch-next', node: reason.data.node, interruptId: dispatch.id };
  }
  if (result.status === Status.INTERRUPTED) {
    const asked = result.interrupts?.find((i) => i.name === DECISIONS_INTERRUPT);
    if (!asked) return fail('the run paused without a decisions interrupt');
    const reason = DecisionsInterruptReasonSchema.safeParse(asked.reason);
    if (!reason.success) return fail(`the decisions interrupt carried no item ids: ${reason.error.message}`);
    return { kind: 'pause', interruptId: asked.id, itemIds: reason.data.item_ids };
  }
  if (result.status !== Status.COMPLETED) {
    const nodeError = result.results.find((r) => r.status === Status.FAILED)?.error;
    return fail(errorMessage(result.error ?? nodeError ?? new Error(`the run ended ${result.status}`)));
  }
  if (resumed) return { kind: 'finish' };
  const output = result.results.find((r) => r.nodeId === 'trigger')?.structuredOutput;
  const verdict = TriggerVerdictSchema.safeParse(output).data;
  return verdict?.triggered === true
    ? { kind: 'finish' }
    : { kind: 'skip', reason: verdict?.reason ?? 'not triggered' };
}

/** A graph that threw is a failed pass, read the same way. */
export function interpretThrown(error: unknown): Outcome {
  return fail(errorMessage(error));
}

function fail(reason: string): Outcome {
  return { kind: 'fail', reason };
}

function nodeOf(reason: unknown): string {
  return typeof reason === 'object' && reason !== null && 'node' in reason
    ? String(reason.node)
    : String(reason);
}

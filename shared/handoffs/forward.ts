import { Message, TextBlock, type Agent } from '@strands-agents/sdk';
import { HandoffConfigError } from './errors.ts';
import type { HandoffInputFilter } from './handoff.ts';
import { HandoffInputData } from './input-data.ts';
import type { HandoffMark } from './items.ts';
import { applyBudget, collapse } from './policy.ts';
import type { Segment } from './run-control.ts';

/** A handoff the runner is about to carry out, whichever way it was decided. */
export interface Transfer {
  readonly target: Agent;
  readonly mark: HandoffMark;
  readonly inputFilter: HandoffInputFilter | undefined;
  readonly budget: number | undefined;
  readonly collapse: boolean;
}

/**
 * What the target starts with. In order: the audit data (`context` = what the source
 * inherited, `output` = what it produced); the budget, which sets `forwarded` to the most
 * recent messages that fit; the input filter; then collapse into one message. The result is
 * a fresh copy the target may change freely. If it does not end with a user message, one
 * saying who handed over is appended, so the target's model is never asked to continue its
 * own (prefilled) turn.
 */
export async function forwardHistory(
  segment: Segment,
  transfer: Transfer,
): Promise<{ data: HandoffInputData; messages: Message[] }> {
  const { source, target } = transfer.mark;
  const data = new HandoffInputData({
    source,
    target,
    context: segment.context.map((m) => m.clone()),
    output: segment.output.map((m) => m.clone()),
  });
  let current = data;
  if (transfer.budget !== undefined) {
    current = current.clone({ forwarded: applyBudget(current.messages, transfer.budget) });
  }
  if (transfer.inputFilter) {
    const filtered = await transfer.inputFilter(current);
    if (
      !(filtered instanceof HandoffInputData) ||
      filtered.context !== data.context ||
      filtered.output !== data.output
    ) {
      throw new HandoffConfigError(
        `the input filter of the handoff to ${target} must return data.clone({ forwarded }) of the data it was given`,
      );
    }
    current = filtered;
  }
  let forwarded: readonly Message[] = current.current;
  if (transfer.collapse && forwarded.length > 0) forwarded = [collapse(forwarded, source, target)];
  const messages = forwarded.map((m) => m.clone());
  if (messages.at(-1)?.role !== 'user') messages.push(continuation(source, target));
  return { data: current, messages };
}

function continuation(source: string, target: string): Message {
  const text = `[Handoff] ${source} transferred this conversation to you (${target}). Continue from here.`;
  return new Message({ role: 'user', content: [new TextBlock(text)] });
}

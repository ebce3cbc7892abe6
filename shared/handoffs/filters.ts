import { Message } from '@strands-agents/sdk';
import type { HandoffInputFilter } from './handoff.ts';
import type { HandoffInputData } from './input-data.ts';
import { dropOrphanedResults } from './policy.ts';

/**
 * Built-in input filters. Each reads `data.current` (what an earlier policy or filter
 * forwarded, else `context + output`) and returns `data.clone({ forwarded })`; none
 * touches `context` or `output`.
 */

/**
 * Forwards the `n` most recent messages. A slice that would open on tool results whose
 * calls were cut off drops those results too, so it may hold fewer than `n` messages.
 */
export function keepLastN(n: number): (data: HandoffInputData) => HandoffInputData {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`keepLastN needs a whole number >= 0, got ${n}`);
  return (data) => {
    const current = data.current;
    return data.clone({ forwarded: dropOrphanedResults(n === 0 ? [] : current.slice(-n)) });
  };
}

/**
 * Forwards the conversation without tool calls and tool results (the transfer included):
 * messages left with no content are dropped.
 */
export const removeToolCalls = (data: HandoffInputData): HandoffInputData => {
  const forwarded: Message[] = [];
  for (const message of data.current) {
    const content = message.content.filter((b) => b.type !== 'toolUseBlock' && b.type !== 'toolResultBlock');
    if (content.length === message.content.length) forwarded.push(message);
    else if (content.length > 0) forwarded.push(new Message({ role: message.role, content }));
  }
  return data.clone({ forwarded });
};

/** Runs filters left to right, each on the previous one's result. */
export function compose(...filters: readonly HandoffInputFilter[]): HandoffInputFilter {
  return async (data) => {
    let current = data;
    for (const filter of filters) current = await filter(current);
    return current;
  };
}

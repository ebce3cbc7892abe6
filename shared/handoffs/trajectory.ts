import type { Agent } from '@strands-agents/sdk';
import type { RunItem } from './items.ts';

type Named = string | Pick<Agent, 'name'>;

/**
 * Whether control passed from `from` to `to` during the run: a `handoff_call` and the
 * `handoff_output` that answers it, both naming that source and target. For tests and
 * trajectory evaluations.
 */
export function handoffOccurred(
  result: { readonly newItems: readonly RunItem[] } | readonly RunItem[],
  from: Named,
  to: Named,
): boolean {
  const items = Array.isArray(result)
    ? (result as readonly RunItem[])
    : (result as { newItems: readonly RunItem[] }).newItems;
  const source = typeof from === 'string' ? from : from.name;
  const target = typeof to === 'string' ? to : to.name;
  const calls = new Set<string>();
  for (const item of items) {
    if (item.type === 'handoff_call' && item.source === source && item.target === target)
      calls.add(item.toolUseId);
    if (
      item.type === 'handoff_output' &&
      item.source === source &&
      item.target === target &&
      calls.has(item.toolUseId)
    ) {
      return true;
    }
  }
  return false;
}

/** The agents that held control, in order (the first one, then each handoff's target). */
export function agentPath(items: readonly RunItem[], first: Named): string[] {
  const path = [typeof first === 'string' ? first : first.name];
  for (const item of items) if (item.type === 'handoff_output') path.push(item.target);
  return path;
}

import type { PlannedTurn } from '../../../shared/models/turn-model.ts';
import type { ItemView, Script, ToolResults } from '../../support/scripted-model.ts';

export type ToolCall = { name: string; input: Record<string, unknown> };

/**
 * The executor loop with integration tools: on each fetched page, call the given
 * tools (reads, and perhaps forbidden direct calls), then submit every item; fetch
 * again; finish. Every tool result the model saw is kept in `seen`.
 */
export function integrationScript(
  calls: ToolCall[],
  propose: (item: ItemView) => Record<string, unknown>,
  seen: ToolResults = [],
): Script {
  return (results): PlannedTurn => {
    seen.push(...results);
    if (results.length === 0) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (results.some((r) => r.name === 'finish_batch')) return { text: 'done' };
    const fetched = results.find((r) => r.name === 'fetch_items')?.result as
      { items?: ItemView[] } | undefined;
    if (!fetched) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (!fetched.items?.length) return { toolCalls: [{ name: 'finish_batch', input: {} }] };
    return {
      toolCalls: [
        ...calls,
        ...fetched.items.map((item) => ({
          name: 'submit_action',
          input: { item_id: item.id, ...propose(item) },
        })),
      ],
    };
  };
}

/** Proposals keyed by a word in the subject. */
export function bySubject(table: Record<string, Record<string, unknown>>) {
  return (item: ItemView): Record<string, unknown> => {
    const key = Object.keys(table).find((k) => item.subject.includes(k));
    if (!key) throw new Error(`no proposal for ${item.subject}`);
    return table[key]!;
  };
}

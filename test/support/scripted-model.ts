import {
  TurnModel,
  lastToolResults,
  type PlannedTurn,
  type TurnInput,
} from '../../shared/models/turn-model.ts';
import { REPLY_MARKER } from '../../shared/models/offline/markers.ts';

export type ToolResults = ReturnType<typeof lastToolResults>;
export type Script = (results: ToolResults, input: TurnInput) => PlannedTurn;
export type ToolCall = { name: string; input: Record<string, unknown> };

/** A scripted model: each turn is chosen by a function of the last tool results. */
export class ScriptedModel extends TurnModel {
  constructor(private readonly script: Script) {
    super('scripted');
  }

  protected plan(input: TurnInput): PlannedTurn {
    return replyWriterTurn(input) ?? this.script(lastToolResults(input.messages), input);
  }
}

/** A test's reply-writer turn: the reply body it writes for any message (a script need not play it). */
export const SCRIPTED_REPLY = 'Thank you, I will look at this and reply properly.';

/** The reply writer's turn (a tool-less request for a reply body), else null: the script plays the turn. */
export function replyWriterTurn(input: TurnInput): PlannedTurn | null {
  if ((input.options?.toolSpecs ?? []).length > 0) return null;
  const first = input.messages[0]?.content
    .flatMap((b) => (b.type === 'textBlock' ? [b.text] : []))
    .join('\n');
  return first?.startsWith(REPLY_MARKER) ? { text: SCRIPTED_REPLY } : null;
}

export interface ItemView {
  id: string;
  from: string;
  subject: string;
}

/**
 * The executor's loop, with the calls for each fetched page chosen by the test:
 * fetch, make `onPage(items)`'s calls, fetch again, finish when a page is empty.
 */
export function executorLoop(onPage: (items: ItemView[]) => ToolCall[]): Script {
  return (results) => {
    if (results.length === 0) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (results.some((r) => r.name === 'finish_batch')) return { text: 'done' };
    const fetched = results.find((r) => r.name === 'fetch_items')?.result as
      { items?: ItemView[] } | undefined;
    if (!fetched) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (!fetched.items?.length) return { toolCalls: [{ name: 'finish_batch', input: {} }] };
    return { toolCalls: onPage(fetched.items) };
  };
}

/** The submit_action call proposing `proposal` for one item. */
export function submitCall(item: ItemView, proposal: Record<string, unknown>): ToolCall {
  return { name: 'submit_action', input: { item_id: item.id, ...proposal } };
}

/**
 * The usual executor loop, with each item's proposal chosen by the test:
 * fetch, submit every item of the page, fetch again, finish.
 */
export function executorScript(propose: (item: ItemView) => Record<string, unknown>): Script {
  return executorLoop((items) => items.map((item) => submitCall(item, propose(item))));
}

/** Proposals keyed by a word in the subject; an item no key matches throws. */
export function bySubject(
  table: Record<string, Record<string, unknown>>,
): (item: ItemView) => Record<string, unknown> {
  return (item) => {
    const key = Object.keys(table).find((k) => item.subject.includes(k));
    if (!key) throw new Error(`no proposal for ${item.subject}`);
    return table[key]!;
  };
}

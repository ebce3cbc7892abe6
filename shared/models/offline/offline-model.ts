import {
  TurnModel,
  lastToolResults,
  systemText,
  toolNames,
  type PlannedTurn,
  type TurnInput,
} from '../turn-model.ts';
import { categoriesNamedIn, categoryOf, classify, readInstructions, type ItemView } from './classify.ts';
import { builderTurn, operatorTurn, triageTurn } from './assistant-turns.ts';
import { learnerTurn } from './learner-turns.ts';
import { offlineReply, type ReplyFacts } from './reply.ts';
import {
  ACTIONS_MARKER,
  HANDED_ITEM_MARKER,
  INSTRUCTIONS_MARKER,
  REPLY_MARKER,
  SPECIALIST_MARKER,
} from './markers.ts';

export {
  ACTIONS_MARKER,
  HANDED_ITEM_MARKER,
  INSTRUCTIONS_MARKER,
  REPLY_MARKER,
  SPECIALIST_MARKER,
} from './markers.ts';

function lineAfter(text: string, marker: string): string {
  const start = text.indexOf(marker);
  if (start < 0) return '';
  return text
    .slice(start + marker.length)
    .split('\n')[0]!
    .trim();
}

/** Every line of `text` that starts with `marker`, without it. */
function linesAfter(text: string, marker: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(marker))
    .map((line) => line.slice(marker.length).trim());
}

/**
 * The offline stand-in for a real model: deterministic, no network, driving the real
 * agent loop (recall, fetch, one submit_action per item, finish_batch). With specialists,
 * the executor hands each item a specialist's description names the kind of to it
 * (route_item), and each specialist decides the one item it is handed.
 */
export class OfflineModel extends TurnModel {
  constructor(modelId = 'handoff-offline') {
    super(modelId);
  }

  protected plan({ messages, options }: TurnInput): PlannedTurn {
    const tools = toolNames(options);
    if (tools.includes('submit_action') && !tools.includes('fetch_items'))
      return this.specialistTurn(messages, systemText(options));
    if (tools.includes('submit_action')) return this.executorTurn(messages, systemText(options));
    if (tools.includes('write_rule')) return learnerTurn({ messages, options });
    if (tools.length === 0 && firstText(messages).startsWith(REPLY_MARKER)) return replyTurn(messages);
    if (tools.includes('transfer_to_builder')) return triageTurn({ messages, options });
    if (tools.includes('validate_workflow')) return builderTurn({ messages, options });
    if (tools.includes('start_run')) return operatorTurn({ messages, options });
    return { text: 'Nothing for me to do here.' };
  }

  private executorTurn(messages: TurnInput['messages'], system: string): PlannedTurn {
    const results = lastToolResults(messages);
    if (results.length === 0)
      return {
        toolCalls: [
          { name: 'recall_rules', input: {} },
          { name: 'fetch_items', input: {} },
        ],
      };
    if (results.some((r) => r.name === 'finish_batch')) return { text: 'Batch finished.' };
    const fetched = results.find((r) => r.name === 'fetch_items')?.result as
      { items?: ItemView[] } | undefined;
    if (!fetched) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    const items = fetched.items ?? [];
    if (items.length === 0) return { toolCalls: [{ name: 'finish_batch', input: {} }] };
    const propose = proposer(system);
    const route = router(system);
    return {
      toolCalls: items.map((item) => {
        const to = route(item);
        return to
          ? { name: 'route_item', input: { item_id: item.id, intent: to.name, reasoning: to.why } }
          : { name: 'submit_action', input: { ...propose(item) } };
      }),
    };
  }

  /** A specialist decides the one item it was handed, then it is done. */
  private specialistTurn(messages: TurnInput['messages'], system: string): PlannedTurn {
    if (lastToolResults(messages).length > 0) return { text: 'Done with the item.' };
    const first =
      messages[0]?.content.flatMap((b) => (b.type === 'textBlock' ? [b.text] : [])).join('\n') ?? '';
    const view = linesAfter(first, HANDED_ITEM_MARKER)[0];
    if (!view) return { text: 'I was handed no item.' };
    const item = JSON.parse(view) as ItemView;
    return { toolCalls: [{ name: 'submit_action', input: { ...proposer(system)(item) } }] };
  }
}

/** The text of the conversation's first message. */
function firstText(messages: TurnInput['messages']): string {
  return messages[0]?.content.flatMap((b) => (b.type === 'textBlock' ? [b.text] : [])).join('\n') ?? '';
}

/** The reply writer's one turn (it has no tools): a reply from the message's facts. */
function replyTurn(messages: TurnInput['messages']): PlannedTurn {
  return { text: offlineReply(JSON.parse(lineAfter(firstText(messages), REPLY_MARKER)) as ReplyFacts) };
}

/** Proposes an action for an item from the instructions and actions in a system prompt. */
function proposer(system: string): (item: ItemView) => ReturnType<typeof classify> {
  const actions = lineAfter(system, ACTIONS_MARKER)
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const plan = readInstructions(lineAfter(system, INSTRUCTIONS_MARKER), actions);
  const fallback = actions.find((a) => a !== 'delete') ?? 'skip';
  return (item) => classify(item, plan, fallback);
}

/** The specialist whose description names the kind of item this is, if any (first listed wins). */
function router(system: string): (item: ItemView) => { name: string; why: string } | null {
  const specialists = linesAfter(system, SPECIALIST_MARKER).map((line) => {
    const [name = '', description = ''] = line.split(' — ');
    return { name: name.trim(), kinds: categoriesNamedIn(description) };
  });
  return (item) => {
    const kind = categoryOf(item);
    const to = kind ? specialists.find((s) => s.kinds.includes(kind)) : undefined;
    return to ? { name: to.name, why: `looks like a ${kind}` } : null;
  };
}

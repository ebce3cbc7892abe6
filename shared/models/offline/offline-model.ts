import {
  TurnModel,
  lastToolResults,
  systemText,
  toolNames,
  type PlannedTurn,
  type TurnInput,
} from '../turn-model.ts';
import { classify, readInstructions, type ItemView } from './classify.ts';
import { learnerTurn } from './learner-turns.ts';

/** Markers the executor's system prompt carries for a model that reads it literally. */
export const INSTRUCTIONS_MARKER = 'Workflow instructions:';
export const ACTIONS_MARKER = 'Actions you may propose:';

function lineAfter(text: string, marker: string): string {
  const start = text.indexOf(marker);
  if (start < 0) return '';
  return text
    .slice(start + marker.length)
    .split('\n')[0]!
    .trim();
}

/**
 * The offline stand-in for a real model: deterministic, no network, driving the real
 * agent loop (recall, fetch, one submit_action per item, finish_batch).
 */
export class OfflineModel extends TurnModel {
  constructor(modelId = 'handoff-offline') {
    super(modelId);
  }

  protected plan({ messages, options }: TurnInput): PlannedTurn {
    const tools = toolNames(options);
    if (tools.includes('submit_action')) return this.executorTurn(messages, systemText(options));
    if (tools.includes('write_rule')) return learnerTurn({ messages, options });
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
    const actions = lineAfter(system, ACTIONS_MARKER)
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const plan = readInstructions(lineAfter(system, INSTRUCTIONS_MARKER), actions);
    const fallback = actions.find((a) => a !== 'delete') ?? 'skip';
    return {
      toolCalls: items.map((item) => ({
        name: 'submit_action',
        input: { ...classify(item, plan, fallback) },
      })),
    };
  }
}

import {
  TurnModel,
  lastToolResults,
  type PlannedTurn,
  type TurnInput,
} from '../../shared/models/turn-model.ts';

export type ToolResults = ReturnType<typeof lastToolResults>;
export type Script = (results: ToolResults, input: TurnInput) => PlannedTurn;

/** A scripted model: each turn is chosen by a function of the last tool results. */
export class ScriptedModel extends TurnModel {
  constructor(private readonly script: Script) {
    super('scripted');
  }

  protected plan(input: TurnInput): PlannedTurn {
    return this.script(lastToolResults(input.messages), input);
  }
}

export interface ItemView {
  id: string;
  from: string;
  subject: string;
}

/**
 * The usual executor loop, with each item's proposal chosen by the test:
 * fetch, submit every item of the page, fetch again, finish.
 */
export function executorScript(propose: (item: ItemView) => Record<string, unknown>): Script {
  return (results) => {
    if (results.length === 0) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (results.some((r) => r.name === 'finish_batch')) return { text: 'done' };
    const fetched = results.find((r) => r.name === 'fetch_items')?.result as
      { items?: ItemView[] } | undefined;
    if (!fetched) return { toolCalls: [{ name: 'fetch_items', input: {} }] };
    if (!fetched.items?.length) return { toolCalls: [{ name: 'finish_batch', input: {} }] };
    return {
      toolCalls: fetched.items.map((item) => ({
        name: 'submit_action',
        input: { item_id: item.id, ...propose(item) },
      })),
    };
  };
}

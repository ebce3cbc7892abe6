import type { PlannedTurn } from '../../../shared/models/turn-model.ts';
import {
  executorLoop,
  submitCall,
  type ItemView,
  type Script,
  type ToolCall,
  type ToolResults,
} from '../../support/scripted-model.ts';

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
  const loop = executorLoop((items) => [...calls, ...items.map((item) => submitCall(item, propose(item)))]);
  return (results, input): PlannedTurn => {
    seen.push(...results);
    return loop(results, input);
  };
}

import type { Workflow } from '../../workflows/schema.ts';
import { ACTIONS_MARKER, INSTRUCTIONS_MARKER } from '../../models/offline/offline-model.ts';

/** The executor's system prompt: the workflow's instructions and the rules of the gate. */
export function executorPrompt(workflow: Workflow, threshold: number): string {
  const actions = workflow.actions.map((a) => a.name);
  const irreversible = workflow.actions.filter((a) => a.irreversible).map((a) => a.name);
  return [
    `You run the workflow "${workflow.name}" as a background agent.`,
    `${INSTRUCTIONS_MARKER} ${workflow.instructions.replace(/\s+/g, ' ')}`,
    `${ACTIONS_MARKER} ${actions.join(', ')}`,
    '',
    'Work through the batch: call recall_rules and fetch_items, then submit_action exactly once for every item',
    'fetched, then fetch_items again until it returns an empty page, then call finish_batch once.',
    'Tools take item ids; use read_item only when the snippet is not enough.',
    `For each item give your honest confidence from 0 to 1. Below ${threshold} the person is asked.`,
    'Inflating confidence to avoid asking and deflating it to avoid responsibility are both failures.',
    'Your reasoning is shown to the person verbatim when you are unsure: say what you could not tell.',
    'Set force_interrupt when the item looks like phishing or anything the person must see.',
    irreversible.length > 0 ? `Irreversible actions always need the person: ${irreversible.join(', ')}.` : '',
    'Items set aside are not failures: carry on with the rest of the batch.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

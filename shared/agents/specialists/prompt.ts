import type { Workflow, WorkflowSpecialist } from '../../workflows/schema.ts';
import { ACTIONS_MARKER, HANDED_ITEM_MARKER, INSTRUCTIONS_MARKER } from '../../models/offline/markers.ts';
import { compactView } from '../executor/tools.ts';
import { gateLines, oneLine, skillLines } from '../executor/prompt.ts';
import type { IncludedSkill } from '../../skills/skills.ts';
import type { SourceItem } from '../../sources/source.ts';

/** A specialist's system prompt: its own instructions and actions, and the same rules of the gate. */
export function specialistPrompt(
  workflow: Workflow,
  specialist: WorkflowSpecialist,
  actions: string[],
  threshold: number,
  skills: readonly IncludedSkill[] = [],
): string {
  return [
    `You are the "${specialist.name}" specialist of the workflow "${workflow.name}": ${oneLine(specialist.description)}`,
    'The executor hands you one item at a time, for good. Decide it with one submit_action call.',
    `${INSTRUCTIONS_MARKER} ${oneLine(specialist.instructions)}`,
    `${ACTIONS_MARKER} ${actions.join(', ')}`,
    'Anything outside these actions is asked of the person; so is an item you would only be guessing about.',
    ...gateLines(workflow, threshold, actions).slice(0, -1),
    ...skillLines(skills),
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * What a specialist is handed: the one item (its compact view, never the executor's page
 * or its other calls) and the executor's note on why it belongs here.
 */
export function handedItemText(item: SourceItem, from: string, note: string): string {
  return [
    `[Handoff] ${from} handed you item ${item.id}; it is yours to decide.`,
    `${HANDED_ITEM_MARKER} ${JSON.stringify(compactView(item))}`,
    note ? `Why it is yours (${from}): ${oneLine(note)}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

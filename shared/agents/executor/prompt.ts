import type { IncludedSkill } from '../../skills/skills.ts';
import type { Workflow, WorkflowSpecialist } from '../../workflows/schema.ts';
import { ACTIONS_MARKER, INSTRUCTIONS_MARKER, SPECIALIST_MARKER } from '../../models/offline/markers.ts';

/**
 * The executor's system prompt: the workflow's instructions, the skills it includes, its
 * specialists and the rules of the gate.
 */
export function executorPrompt(
  workflow: Workflow,
  threshold: number,
  skills: readonly IncludedSkill[] = [],
): string {
  const actions = workflow.actions.map((a) => a.name);
  const specialists = workflow.specialists ?? [];
  // Without specialists, word for word the prompt the executor always had.
  const work =
    specialists.length > 0
      ? [
          'Work through the batch: call recall_rules and fetch_items, then for every item fetched, exactly once,',
          'route_item when a specialist covers it, else submit_action; then fetch_items again until it returns an',
          'empty page, then call finish_batch once.',
        ]
      : [
          'Work through the batch: call recall_rules and fetch_items, then submit_action exactly once for every item',
          'fetched, then fetch_items again until it returns an empty page, then call finish_batch once.',
        ];
  return [
    `You run the workflow "${workflow.name}" as a background agent.`,
    `${INSTRUCTIONS_MARKER} ${oneLine(workflow.instructions)}`,
    `${ACTIONS_MARKER} ${actions.join(', ')}`,
    '',
    ...work,
    'Tools take item ids; use read_item only when the snippet is not enough.',
    ...specialistLines(specialists),
    ...gateLines(workflow, threshold),
    ...skillLines(skills),
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** What every agent that calls submit_action is told about the gate. */
export function gateLines(
  workflow: Pick<Workflow, 'actions'>,
  threshold: number,
  actions?: string[],
): string[] {
  const irreversible = workflow.actions
    .filter((a) => a.irreversible && (actions === undefined || actions.includes(a.name)))
    .map((a) => a.name);
  return [
    `For each item give your honest confidence from 0 to 1. Below ${threshold} the person is asked.`,
    'Inflating confidence to avoid asking and deflating it to avoid responsibility are both failures.',
    'Your reasoning is shown to the person verbatim when you are unsure: say what you could not tell.',
    'Set force_interrupt when the item looks like phishing or anything the person must see.',
    irreversible.length > 0 ? `Irreversible actions always need the person: ${irreversible.join(', ')}.` : '',
    'Items set aside are not failures: carry on with the rest of the batch.',
  ];
}

function specialistLines(specialists: readonly WorkflowSpecialist[]): string[] {
  if (specialists.length === 0) return [];
  return [
    'Specialists decide the items they cover. Hand such an item over with route_item(item_id, intent = the',
    "specialist's name, reasoning): it is theirs for good, and you do not act on it again.",
    ...specialists.map((s) => `${SPECIALIST_MARKER} ${s.name} — ${oneLine(s.description)}`),
  ];
}

/** The skills an agent includes, each under its name and version, its Markdown kept as written. */
export function skillLines(skills: readonly IncludedSkill[]): string[] {
  if (skills.length === 0) return [];
  return [
    'Follow these skills (named instructions you were given) as well:',
    ...skills.flatMap((s) => [
      `--- skill ${s.name} (version ${s.version}) ---`,
      ...s.body.trim().split('\n'),
    ]),
    '--- end of skills ---',
  ];
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

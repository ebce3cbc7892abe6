/**
 * The offline model's turns as the Operator: read what is asked for (intents.ts), look it up
 * with the read-only tools, then answer from what they returned, or ask to carry out a step
 * (the confirmation gate holds it for the person's yes). It never drafts a workflow.
 */
import type { PlannedTurn, TurnInput } from '../turn-model.ts';
import { lastToolResults } from '../turn-model.ts';
import { allResults, lastRequest, type Json } from './chat-history.ts';
import { namedWorkflow, operatorIntent } from './intents.ts';
import { plural } from '../../text/plural.ts';

type Workflows = { id: string; name: string; paused?: boolean; needs?: string[] }[];

/** The Operator: find what is meant, then answer or ask to carry it out. */
export function operatorTurn({ messages }: TurnInput): PlannedTurn {
  const request = lastRequest(messages);
  const last = lastToolResults(messages);
  const all = allResults(messages);
  const intent = operatorIntent(request) ?? { kind: 'pending' as const };
  if (last.length === 0) {
    switch (intent.kind) {
      case 'answer':
        return { toolCalls: [{ name: 'answer_decision', input: intent.input }] };
      case 'add_rule':
        return { toolCalls: [{ name: 'add_rule', input: intent.input }] };
      case 'rules':
        return { toolCalls: [{ name: 'list_rules', input: {} }] };
      case 'why':
        return { toolCalls: [{ name: 'explain_decision', input: { query: intent.query } }] };
      case 'activity':
        return { toolCalls: [{ name: 'list_activity', input: { day: intent.day } }] };
      default:
        return {
          toolCalls: [
            { name: 'list_workflows', input: {} },
            { name: 'list_pending', input: {} },
          ],
        };
    }
  }
  const names = last.map((r) => r.name);
  if (names.includes('list_rules')) return { text: rulesText(all.get('list_rules')) };
  if (names.includes('explain_decision')) return { text: whyText(all.get('explain_decision')) };
  if (names.includes('list_activity')) return { text: activityText(all.get('list_activity')) };
  if (names.includes('list_workflows')) return onWorkflows(request, intent, all);
  for (const done of ['show_workflow', 'pause_workflow', 'resume_workflow', 'rename_workflow']) {
    const result = all.get(done) as Json | undefined;
    if (names.includes(done))
      return { text: String(result?.text ?? `That could not be done: ${String(result?.error)}.`) };
  }
  const step = (all.get('delete_workflow') ??
    all.get('start_run') ??
    all.get('answer_decision') ??
    all.get('add_rule')) as Json | undefined;
  const error = typeof step?.error === 'string' ? step.error : '';
  return {
    text: error.startsWith('Not done yet')
      ? `${error.replace(/^Not done yet: the person must confirm first \((.*)\)\..*$/, '$1')}? Say yes to go ahead, or no.`
      : error || 'Done.',
  };
}

function onWorkflows(
  request: string,
  intent: NonNullable<ReturnType<typeof operatorIntent>>,
  all: Map<string, unknown>,
): PlannedTurn {
  const workflows = ((all.get('list_workflows') as Json | undefined)?.workflows ?? []) as Workflows;
  const named = namedWorkflow(request, workflows);
  const which = () =>
    workflows.length === 0
      ? 'There are no workflows yet. Describe one and I will draft it.'
      : `Which workflow? Yours are: ${workflows.map((w) => w.id).join(', ')}.`;
  const unknown = () => {
    const asked = /\b[a-z0-9]+(?:-[a-z0-9]+)+\b/.exec(request.toLowerCase())?.[0];
    return asked
      ? `There is no workflow "${asked}". Yours are: ${workflows.map((w) => w.id).join(', ') || 'none yet'}. Nothing changed.`
      : which();
  };
  switch (intent.kind) {
    case 'delete':
      return named
        ? { toolCalls: [{ name: 'delete_workflow', input: { workflow_id: named.id } }] }
        : { text: unknown() };
    case 'rename':
      return named
        ? { toolCalls: [{ name: 'rename_workflow', input: { workflow_id: named.id, name: intent.to } }] }
        : { text: unknown() };
    case 'pause':
    case 'resume':
    case 'show':
      return named
        ? { toolCalls: [{ name: `${intent.kind}_workflow`, input: { workflow_id: named.id } }] }
        : { text: unknown() };
    case 'list':
      return {
        text:
          workflows.length === 0
            ? 'There are no workflows yet. Describe one and I will draft it.'
            : `Your workflows: ${workflows.map((w) => `${w.id} ("${w.name}"${w.needs ? `, paused: needs ${w.needs.join(', ')}` : w.paused ? ', paused' : ''})`).join(', ')}.`,
      };
    case 'run': {
      const target = named ?? (workflows.length === 1 ? workflows[0] : workflows.at(-1));
      if (!target) return { text: 'There is no workflow to run yet. Describe one and I will build it.' };
      return { toolCalls: [{ name: 'start_run', input: { workflow_id: target.id } }] };
    }
    default: {
      const pending = ((all.get('list_pending') as Json | undefined)?.pending ?? []) as {
        subject: string;
        suggested_action: string;
      }[];
      if (pending.length === 0) return { text: 'Nothing is waiting for you.' };
      return {
        text: `${plural(pending.length, 'question')} wait${pending.length === 1 ? 's' : ''} for you: ${pending
          .slice(0, 5)
          .map((p) => `"${p.subject}" (suggested ${p.suggested_action})`)
          .join('; ')}. Answer them on the decision cards or the Activity page.`,
      };
    }
  }
}

function rulesText(result: unknown): string {
  const rules = ((result as Json | undefined)?.rules ?? []) as {
    rule_id: string;
    reads: string;
    action: string;
    source: string;
    from: string;
  }[];
  if (rules.length === 0)
    return 'I have no rules yet: none learned, none set by you. Each answer you give to a question teaches one.';
  const learned = rules.filter((r) => r.source === 'learned').length;
  return `${plural(rules.length, 'rule')}, ${learned} learned from your answers:\n${rules
    .map((r) => `- ${r.reads} → ${r.action} (${r.rule_id}; ${r.from})`)
    .join('\n')}`;
}

function whyText(result: unknown): string {
  const d = (result ?? {}) as Json;
  if (typeof d.decision_id !== 'string') return `I found no question like that: ${String(d.error ?? '')}.`;
  const answered = d.answer
    ? ` You answered ${String(d.answer)}.`
    : d.status === 'pending'
      ? ' It is still waiting for you.'
      : '';
  return `I asked about "${String(d.subject)}" from ${String(d.sender)} (${d.decision_id}) because of ${String(d.asked_because)}: I would have chosen ${String(d.suggested)} at ${Math.round(Number(d.confidence) * 100)}% confidence. My reasoning then: ${String(d.reasoning)}${answered}`;
}

function activityText(result: unknown): string {
  const a = (result ?? {}) as {
    day?: string;
    time_zone?: string;
    runs?: number;
    counts?: Record<string, number>;
    lines?: string[];
  };
  const counts = Object.entries(a.counts ?? {});
  if (!a.runs) return `Nothing ran on ${String(a.day)} (${String(a.time_zone)}).`;
  return `On ${String(a.day)} (${String(a.time_zone)}): ${plural(a.runs, 'run')}; ${counts.map(([k, n]) => `${k} ${n}`).join(', ') || 'no items'}.\n${(a.lines ?? []).map((l) => `- ${l}`).join('\n')}`;
}

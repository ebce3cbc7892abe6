import type { Decision, Run, RunCounts } from '../records/runs.ts';
import type { Words } from '../actions/words.ts';

/** One pending decision as `handoff pending --json` and `GET /api/pending` print it. */
export interface PendingJson {
  decision_id: string;
  run_id: string;
  interrupt_id: string;
  workflow_id: string;
  item_id: string;
  sender: string;
  subject: string;
  suggested_action: string;
  confidence: number;
  reasoning: string;
  options: string[];
  /** Only for runs with specialists: the specialist that asked. */
  agent?: string;
  /** The words written for the options that carry words (a reply's body, a ticket), editable when answering. */
  drafts?: Words[];
}

/** The public view of a decision: the fields a person (or script) needs to answer it. */
export function toPendingJson(d: Decision): PendingJson {
  return {
    decision_id: d.id,
    run_id: d.run_id,
    interrupt_id: d.interrupt_id,
    workflow_id: d.workflow_id,
    item_id: d.item_id,
    sender: d.sender,
    subject: d.subject,
    suggested_action: d.suggested_action,
    confidence: d.confidence,
    reasoning: d.reasoning,
    options: d.options,
    ...(d.agent !== undefined ? { agent: d.agent } : {}),
    ...(d.drafts && d.drafts.length > 0 ? { drafts: d.drafts } : {}),
  };
}

/** What `handoff run --json` and `GET /api/runs/:id` print. */
export interface RunSummary {
  run_id: string;
  status: 'running' | 'waiting' | 'completed' | 'skipped' | 'failed';
  acted: number;
  /** Items a rule decided (an action or skip): the audit's `decided_by: memory` entries. */
  by_memory: number;
  deferred: number;
  interrupt_id: string | null;
  /** Only for a failed run: why it failed. */
  error?: string;
}

/** A run as other systems see it. */
export function summarise(run: Run): RunSummary {
  return {
    run_id: run.id,
    status: run.status,
    acted: run.counts.acted,
    by_memory: run.counts.by_your_rules + run.counts.by_learned_rules,
    deferred: run.counts.deferred,
    interrupt_id: run.interrupt_id,
    ...(run.status === 'failed' ? { error: run.error ?? 'the run failed (no reason was recorded)' } : {}),
  };
}

/**
 * A run's counts the way a person reads them. Every acted item has exactly one
 * decider, so `acted = confident + from_rules + by_you`, and `from_rules` is
 * `your_rules + learned_rules`. `asked` counts items set aside for you; once
 * answered they are also in `by_you` or `declined`.
 */
export interface Outcome {
  acted: number;
  confident: number;
  /** Acted on by a rule. */
  from_rules: number;
  your_rules: number;
  learned_rules: number;
  by_you: number;
  /** Decided by a rule but not acted on (a rule's skip, or its action failed). */
  rules_left_alone: number;
  asked: number;
  declined: number;
  failed: number;
}

/**
 * Splits a run's counts into who acted: what neither the model alone nor a person acted on
 * was acted on by a rule. Rules also decide items they leave alone (`rules_left_alone`).
 */
export function outcomeOf(counts: RunCounts): Outcome {
  const byRules = counts.by_your_rules + counts.by_learned_rules;
  const fromRules = Math.min(byRules, Math.max(0, counts.acted - counts.confident - counts.by_you));
  const yours = Math.min(counts.by_your_rules, fromRules);
  return {
    acted: counts.acted,
    confident: counts.confident,
    from_rules: fromRules,
    your_rules: yours,
    learned_rules: fromRules - yours,
    by_you: counts.by_you,
    rules_left_alone: byRules - fromRules,
    asked: counts.deferred,
    declined: counts.declined,
    failed: counts.failed,
  };
}

/**
 * The one sentence about a run's outcome, wherever counts are shown to a person.
 * The parts in brackets add up to `acted`: `10 acted (7 confident, 0 from rules,
 * 3 by you), 6 asked, 3 declined`; rules split into `from your rules` and
 * `from learned rules` when any acted, and what rules decided but did not act on
 * (a rule's skip) is `N left alone by rules`, so every item a rule decided is counted once.
 */
export function describeCounts(counts: RunCounts): string {
  const o = outcomeOf(counts);
  const rules = [
    o.your_rules > 0 ? `${o.your_rules} from your rules` : null,
    o.learned_rules > 0 ? `${o.learned_rules} from learned rules` : null,
  ].filter((part): part is string => part !== null);
  const deciders = [
    `${o.confident} confident`,
    ...(rules.length ? rules : ['0 from rules']),
    `${o.by_you} by you`,
  ];
  const leftByRules = o.rules_left_alone ? `, ${o.rules_left_alone} left alone by rules` : '';
  return `${o.acted} acted (${deciders.join(', ')})${leftByRules}, ${o.asked} asked, ${o.declined} declined${
    o.failed ? `, ${o.failed} failed` : ''
  }`;
}

const IRREGULAR: Record<string, string> = {
  send: 'sent',
  forward: 'forwarded',
  reply: 'replied to',
  write: 'wrote',
  leave: 'left',
  pay: 'paid',
  put: 'put',
  set: 'set',
  get: 'got',
  make: 'made',
  run: 'ran',
  flag: 'flagged',
  tag: 'tagged',
  label: 'labelled',
  pin: 'pinned',
  ship: 'shipped',
  skip: 'left alone',
};

function pastOf(verb: string): string {
  if (IRREGULAR[verb]) return IRREGULAR[verb];
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  return `${verb}ed`;
}

/**
 * An action named as done, for people: `file_ticket` → `Filed ticket`,
 * `request_changes` → `Requested changes`, `skip` → `Left alone`, and an
 * integration's `github__create_issue` → `Created issue (github)`.
 */
export function actionDone(action: string): string {
  const [entry, tool] = action.includes('__') ? action.split('__', 2) : [null, action];
  const [verb = '', ...rest] = (tool ?? '').split('_').filter(Boolean);
  const text = [pastOf(verb.toLowerCase()), ...rest].join(' ');
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return entry ? `${sentence} (${entry})` : sentence;
}

/**
 * What was done with a decision, in words for people: `Archived — the agent's
 * suggestion` for approve_suggested, `Left alone` for skip, `Left alone — nobody
 * answered in time` when it expired, `Waiting for you` while it waits. Every page
 * and the CLI name an answer with this.
 */
export function describeAnswer(decision: Pick<Decision, 'status' | 'answer' | 'suggested_action'>): string {
  const { answer } = decision;
  if (decision.status === 'pending') return 'Waiting for you';
  if (!answer || answer.by === 'expired') return 'Left alone — nobody answered in time';
  if (answer.by === 'unreachable') return 'Left alone — nobody could be reached';
  if (answer.action === 'approve_suggested')
    return `${actionDone(decision.suggested_action)} — the agent's suggestion`;
  return actionDone(answer.action);
}

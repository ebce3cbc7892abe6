import type { Decision, Run } from '../records/runs.ts';
import { countsOf, type Counts } from './counts.ts';
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
  /** Only for a skipped run: why there was nothing to do ("no new mail since 08:00 UTC"). */
  skip_reason?: string;
  /** What the run did, as every surface counts it (runs/counts.ts). */
  counts: Counts;
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
    counts: countsOf(run.counts),
    ...(run.status === 'failed' ? { error: run.error ?? 'the run failed (no reason was recorded)' } : {}),
    ...(run.status === 'skipped' && run.skip_reason ? { skip_reason: run.skip_reason } : {}),
  };
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

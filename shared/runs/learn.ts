import { runLearner } from '../agents/learner/learner.ts';
import { senderDomain, type LearnerCase } from '../agents/learner/proposal.ts';
import { routeModelEvents } from '../models/model-events.ts';
import { runRecorder } from '../recorder/record-run.ts';
import { learnerSessionId } from '../recorder/store-sink.ts';
import type { EngineDeps } from './deps.ts';
import type { Decision } from '../records/runs.ts';
import { newId } from '../store/ids.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { marksException } from '../memory/exception.ts';
import { matches } from '../memory/match.ts';
import { RuleSchema, type Rule, type RuleMatch } from '../records/rule.ts';
import { listRules } from '../memory/rules-repository.ts';

export type LearnOutcome =
  | { kind: 'learned'; rule: Rule; superseded: Rule[] }
  | { kind: 'known'; rule: Rule }
  | { kind: 'none'; reason: string; superseded: Rule[] };

function sameMatch(a: RuleMatch, b: RuleMatch): boolean {
  if ('sender' in a && 'sender' in b) return a.sender.toLowerCase() === b.sender.toLowerCase();
  if ('domain' in a && 'domain' in b) return a.domain.toLowerCase() === b.domain.toLowerCase();
  if ('keywords' in a && 'keywords' in b)
    return [...a.keywords].sort().join(',').toLowerCase() === [...b.keywords].sort().join(',').toLowerCase();
  return false;
}

/** The action a person's answer stands for (approve_suggested is the suggestion). */
export function answeredAction(decision: Decision): string | null {
  if (decision.status !== 'answered' || !decision.answer) return null;
  return decision.answer.action === 'approve_suggested' ? decision.suggested_action : decision.answer.action;
}

/**
 * Wakes the Learner for one answered decision and keeps what it writes: at most one
 * narrow rule. A learned rule the answer corrects — same match, or one that covered
 * this very item — is superseded (kept, visible in history, never fired again).
 * An answer marked as an exception teaches nothing and cancels nothing. A rule learned
 * after this question was asked (from an answer given alongside it) is no correction's
 * target: only a rule with the same match and another action conflicts with it, and
 * then neither stands, whichever answer came first.
 */
export async function learnFromDecision(
  deps: EngineDeps,
  decision: Decision,
  read?: Workflow,
): Promise<LearnOutcome> {
  const action = answeredAction(decision);
  if (!action) return { kind: 'none', reason: 'nothing was answered', superseded: [] };
  if (marksException(decision.answer?.note)) {
    const reason = 'the answer was marked as an exception: it teaches nothing and cancels nothing';
    deps.emit(decision.run_id, 'memory', 'Learned no rule (an exception)', {
      decision_id: decision.id,
      rule_id: null,
      superseded: [],
    });
    return { kind: 'none', reason, superseded: [] };
  }
  const workflow =
    read?.id === decision.workflow_id ? read : await getWorkflow(deps.store, decision.workflow_id);
  const learnerCase: LearnerCase = {
    decision_id: decision.id,
    workflow_id: decision.workflow_id,
    sender: decision.sender,
    sender_domain: senderDomain(decision.sender),
    subject: decision.subject,
    snippet: decision.snippet,
    suggested_action: decision.suggested_action,
    chosen_action: action,
    irreversible: workflow.actions.some((a) => a.name === action && a.irreversible),
    note: decision.answer?.note ?? null,
  };
  // The learner's turns belong to the run the answer came from: its trace and usage show them.
  const recorder = runRecorder(
    deps.store,
    { id: decision.run_id, workflow_id: decision.workflow_id },
    { sessionId: learnerSessionId(decision.id), newSession: true },
  );
  const model = await deps.models('fallback', {
    onEvent: routeModelEvents(decision.run_id, {
      emit: deps.emit,
      repairs: (_, event) => recorder.noteModelEvent(event),
    }),
  });
  const verdict = await runLearner(model, learnerCase, (agent) =>
    recorder.watchAgent(agent, { node: 'learner' }),
  );
  await recorder.flush();

  const live = (await listRules(deps.store)).filter(
    (r) => r.source === 'learned' && r.superseded_by === null && r.workflow_id === decision.workflow_id,
  );
  const item = { senderAddress: decision.sender, subject: decision.subject, text: decision.snippet };
  const proposal = verdict.kind === 'rule' ? verdict.proposal : null;
  const known =
    proposal && live.find((r) => sameMatch(r.match, proposal.match) && r.action === proposal.action);
  if (known) return { kind: 'known', rule: known };
  const existedWhenAsked = (r: Rule) => r.created_at <= decision.created_at;
  const sameAsProposal = (r: Rule) => proposal !== null && sameMatch(r.match, proposal.match);
  const contradicted = live.filter(
    (r) => r.action !== action && (sameAsProposal(r) || (existedWhenAsked(r) && matches(r.match, item))),
  );
  const conflict = contradicted.some((r) => !existedWhenAsked(r));

  let rule: Rule | null = null;
  if (proposal && !conflict) {
    rule = RuleSchema.parse({
      id: newId('rule'),
      workflow_id: decision.workflow_id,
      match: proposal.match,
      action: proposal.action,
      source: 'learned',
      note: decision.answer?.note ?? null,
      pattern: proposal.pattern,
      confidence: proposal.confidence,
      decision_id: decision.id,
      item_id: decision.item_id,
      superseded_by: null,
      created_at: new Date().toISOString(),
    });
    rule = RuleSchema.parse(await deps.store.create('rules', rule));
    rule = await mirrorRule(deps, rule);
  }
  const superseded: Rule[] = [];
  for (const old of contradicted) {
    const retired = RuleSchema.parse(
      await deps.store.update('rules', { ...old, superseded_by: rule?.id ?? decision.id }, old.version ?? 1),
    );
    await deps.mirror.ruleRetired(retired, retired.mirror_ids);
    superseded.push(retired);
  }
  deps.emit(decision.run_id, 'memory', rule ? `Learned: ${proposal!.pattern}` : 'Learned no rule', {
    decision_id: decision.id,
    rule_id: rule?.id ?? null,
    superseded: superseded.map((r) => r.id),
  });
  return rule
    ? { kind: 'learned', rule, superseded }
    : {
        kind: 'none',
        reason: conflict
          ? 'answers given together disagree about the same match; the next such item is asked again'
          : verdict.kind === 'none'
            ? verdict.reason
            : 'no rule',
        superseded,
      };
}

async function mirrorRule(deps: EngineDeps, rule: Rule): Promise<Rule> {
  const ids = await deps.mirror.ruleLearned(rule);
  if (ids.length === 0) return rule;
  return RuleSchema.parse(await deps.store.update('rules', { ...rule, mirror_ids: ids }, rule.version ?? 1));
}

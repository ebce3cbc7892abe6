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
import { answeredOnce } from '../memory/exception.ts';
import { matches } from '../memory/match.ts';
import { reachOf, sourceKeyOf } from '../memory/source-key.ts';
import { isLive, RuleSchema, type Rule, type RuleMatch } from '../records/rule.ts';
import { invalidateRuleSet, readRuleSets, ruleSetWrite, type ScopeRules } from '../memory/rule-sets.ts';
import { commitAll, type Write, type WriteResult } from '../store/store.ts';
import { indexRules, markIndexedIfOnly, ownRulesForAnswer, ruleKeyWrites } from '../memory/rule-keys.ts';

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
  if (answeredOnce(decision.answer)) {
    const reason = 'the answer was given just this once: it teaches nothing and cancels nothing';
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

  const proposal = verdict.kind === 'rule' ? verdict.proposal : null;
  // The workflow's live rules that bear on this answer: by what they match (read with the
  // answer); before the rules are indexed, from the workflow's copy of them.
  // A rule belongs to the source the mail came from (every workflow reading it uses it), unless
  // the person kept it to this workflow; an answer weighs the rules of both.
  const sourceKey = decision.workflow_view?.source_key ?? sourceKeyOf(workflow);
  const keyed = await ownRulesForAnswer(
    deps.store,
    decision.workflow_id,
    decision.sender,
    sourceKey,
    proposal?.match ?? null,
  );
  const own: ScopeRules = keyed
    ? { scope: decision.workflow_id, rules: keyed, version: null }
    : (await readRuleSets(deps.store, decision.workflow_id)).own;
  const live = own.rules.filter((r) => r.source === 'learned');
  const item = { senderAddress: decision.sender, subject: decision.subject, text: decision.snippet };
  const known =
    proposal && live.find((r) => sameMatch(r.match, proposal.match) && r.action === proposal.action);
  if (known) return { kind: 'known', rule: known };
  const existedWhenAsked = (r: Rule) => r.created_at <= decision.created_at;
  const sameAsProposal = (r: Rule) => proposal !== null && sameMatch(r.match, proposal.match);
  // An answer kept to this workflow overrides the source's rules here, and retires none of them.
  const keptHere = decision.answer?.scope === 'workflow';
  const contradicted = live.filter(
    (r) =>
      r.action !== action &&
      (!keptHere || reachOf(r).kind === 'workflow') &&
      (sameAsProposal(r) || (existedWhenAsked(r) && matches(r.match, item))),
  );
  const conflict = contradicted.some((r) => !existedWhenAsked(r));

  let rule: Rule | null = null;
  if (proposal && !conflict) {
    rule = RuleSchema.parse({
      id: newId('rule'),
      workflow_id: decision.workflow_id,
      source_key: sourceKey,
      scope: decision.answer?.scope === 'workflow' ? 'workflow' : 'source',
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
  }
  // The rule, the ones it supersedes and the workflow's copy of its live rules: one commit.
  const written = await writeRules(deps, own, rule, contradicted, rule?.id ?? decision.id);
  if (rule) rule = await mirrorRule(deps, written.rule!, written.set);
  const superseded: Rule[] = [];
  for (const retired of written.retired) {
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

/**
 * Creates `rule` and supersedes `retire` (by `by`), with the scope's copy of its live rules
 * in the same commit. A write that fails leaves the copy marked stale and throws, as the
 * single writes did: the rule created stays, a supersede lost to another writer is not made.
 */
async function writeRules(
  deps: EngineDeps,
  own: ScopeRules,
  rule: Rule | null,
  retire: readonly Rule[],
  by: string,
): Promise<{ rule: Rule | null; retired: Rule[]; set: ScopeRules }> {
  const retiring = new Set(retire.map((r) => r.id));
  const writes: Write[] = [
    ...(rule ? [{ kind: 'create' as const, collection: 'rules' as const, record: rule }] : []),
    ...retire.map((old): Write => ({
      kind: 'update',
      collection: 'rules',
      record: { ...old, superseded_by: by },
      expectedVersion: old.version ?? 1,
    })),
  ];
  if (writes.length === 0) return { rule, retired: [], set: own };
  const created = rule ? { ...rule, version: 1 } : null;
  const after = [...own.rules.filter((r) => !retiring.has(r.id)), ...(created ? [created] : [])];
  const setWrites = ruleSetWrite(own, after);
  // The keys the rule goes into and the retired ones leave (rule-keys.ts), in the same commit.
  const retiredRules = retire.map((old) => ({ ...old, superseded_by: by }));
  const keyWrites = await ruleKeyWrites(deps.store, created ? [created] : [], retiredRules);
  const results = await commitAll(deps.store, [...writes, ...setWrites, ...keyWrites]);
  const keyResults = results.slice(writes.length + setWrites.length);
  const failed = results.slice(0, writes.length + setWrites.length).find((r) => !r.ok);
  const setResult = results[writes.length];
  if (failed || (setWrites.length > 0 && !setResult?.ok)) await invalidateRuleSet(deps.store, own.scope);
  if (failed || keyResults.some((r) => !r.ok)) await reindexLanded(deps, writes, results);
  if (failed && !failed.ok) {
    // As before the commit: the rule that landed is mirrored, then the lost supersede is reported.
    const landed = rule && results[0]?.ok ? RuleSchema.parse(results[0].record) : null;
    if (landed) await mirrorRule(deps, landed, { scope: own.scope, rules: [], version: null });
    throw failed.error;
  }
  const parsed = results.slice(0, writes.length).map((r) => RuleSchema.parse(r.ok ? r.record : {}));
  if (rule) await markIndexedIfOnly(deps.store, [parsed[0]!]);
  const version = setResult?.ok ? Number(setResult.record.version) : null;
  return {
    rule: rule ? parsed[0]! : null,
    retired: rule ? parsed.slice(1) : parsed,
    set: { scope: own.scope, rules: after.map((r) => (r.id === created?.id ? parsed[0]! : r)), version },
  };
}

/**
 * When part of a commit of rules did not land (another writer moved a rule or a key
 * meanwhile), the rules as they are now go into their keys one at a time.
 */
async function reindexLanded(
  deps: EngineDeps,
  writes: readonly Write[],
  results: readonly WriteResult[],
): Promise<void> {
  const landed = writes.flatMap((w, i) => {
    const result = results[i];
    return result?.ok ? [RuleSchema.parse(result.record)] : [];
  });
  const live = landed.filter((r) => isLive(r));
  const retired = landed.filter((r) => r.superseded_by !== null);
  await indexRules(deps.store, live, retired);
}

/** Records the mirror's ids on a learned rule, and on the scope's copy with it. */
async function mirrorRule(deps: EngineDeps, rule: Rule, set: ScopeRules): Promise<Rule> {
  const ids = await deps.mirror.ruleLearned(rule);
  if (ids.length === 0) return rule;
  const mirrored = { ...rule, mirror_ids: ids };
  const after = set.rules.map((r) =>
    r.id === rule.id ? { ...mirrored, version: (rule.version ?? 1) + 1 } : r,
  );
  const setWrites = ruleSetWrite(set, after);
  const results = await commitAll(deps.store, [
    { kind: 'update', collection: 'rules', record: mirrored, expectedVersion: rule.version ?? 1 },
    ...setWrites,
  ]);
  if (setWrites.length > 0 && !results[1]?.ok) await invalidateRuleSet(deps.store, set.scope);
  const [written] = results;
  if (!written?.ok) {
    await invalidateRuleSet(deps.store, set.scope);
    throw written!.error;
  }
  const parsed = RuleSchema.parse(written.record);
  await indexRules(deps.store, [parsed], []); // its key's copy carries the mirror's ids too
  return parsed;
}

/**
 * What an answer taught, in words a person reads on every answer surface (the CLI, the API,
 * the decision page and Activity): "From now on: mail from tomi@fastmail.example → draft a
 * reply", or "Nothing learned (just this once)".
 */
import { answeredOnce } from '../memory/exception.ts';
import { readRuleSets } from '../memory/rule-sets.ts';
import { ownRulesForAnswer } from '../memory/rule-keys.ts';
import { sourceKeyOf } from '../memory/source-key.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { isLive, type Rule, type RuleMatch } from '../records/rule.ts';
import type { Decision } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import type { AfterAnswer } from './learning.ts';

/** The rule an answer taught, as `--json` and the API return it (`learned_rule`). */
export interface LearnedRuleJson {
  id: string;
  pattern: string;
  action: string;
}

/** What an answer taught: a rule (which Undo revokes alone), or nothing, and why, in words. */
export interface Learned {
  rule: LearnedRuleJson | null;
  words: string;
}

const PHRASES: Record<string, string> = {
  draft_reply: 'draft a reply',
  file_ticket: 'file a ticket',
  skip: 'leave it alone',
  archive: 'archive it',
  delete: 'delete it',
  send_reply: 'send a reply',
};

/** An action as a person says it: `draft_reply` → `draft a reply`, `github__create_issue` → `create issue (github)`. */
export function actionPhrase(action: string): string {
  const known = PHRASES[action];
  if (known) return known;
  const [entry, tool] = action.includes('__') ? action.split('__', 2) : [null, action];
  const words = (tool ?? '').split('_').filter(Boolean).join(' ');
  return entry ? `${words} (${entry})` : words;
}

/** What a rule matches, as a person says it: `mail from a@b.example`, `anything from b.example`. */
export function matchPhrase(match: RuleMatch): string {
  if ('sender' in match) return `mail from ${match.sender}`;
  if ('domain' in match) return `anything from ${match.domain.replace(/^@/, '')}`;
  return `mail about ${match.keywords.join(' and ')}`;
}

/** "From now on: mail from a@b.example → archive it". */
export function ruleWords(
  rule: Pick<Rule, 'match' | 'action'> & Partial<Pick<Rule, 'scope' | 'source_key'>>,
): string {
  const keptHere = rule.scope === 'workflow' && rule.source_key ? ' (in this workflow only)' : '';
  return `From now on: ${matchPhrase(rule.match)} → ${actionPhrase(rule.action)}${keptHere}`;
}

export function learnedRuleJson(rule: Rule): LearnedRuleJson {
  return { id: rule.id, pattern: rule.pattern ?? ruleWords(rule), action: rule.action };
}

export const NOTHING_ONCE = 'Nothing learned (just this once)';

/** What an answer just given taught, from what learning came to. */
export function learnedFrom(answered: Decision, after: AfterAnswer): Learned {
  if (answeredOnce(answered.answer)) return { rule: null, words: NOTHING_ONCE };
  if (after.kind === 'sent')
    return { rule: null, words: 'Learning from this answer (see Memory for the rule it writes)' };
  if (after.kind === 'failed') return { rule: null, words: `Nothing learned yet: ${after.error}` };
  const outcome = after.outcome;
  if (outcome.kind === 'learned')
    return { rule: learnedRuleJson(outcome.rule), words: ruleWords(outcome.rule) };
  if (outcome.kind === 'known')
    return { rule: null, words: `Already known: ${lowerFirst(ruleWords(outcome.rule))}` };
  return { rule: null, words: `Nothing learned (${outcome.reason})` };
}

/**
 * What an answer given earlier taught, read back (a page shown after the answer): the live
 * rule learned from it, read from the keys of its sender (one batched read; before the rules
 * are indexed, from its workflow's copy of them).
 */
export async function learnedOf(store: Store, answered: Decision): Promise<Learned> {
  if (answered.status !== 'answered' || answered.answer?.by !== 'human')
    return { rule: null, words: 'Nothing learned (nobody answered)' };
  if (answeredOnce(answered.answer)) return { rule: null, words: NOTHING_ONCE };
  const sourceKey = await questionSourceKey(store, answered);
  const rules =
    (await ownRulesForAnswer(store, answered.workflow_id, answered.sender, sourceKey)) ??
    (await readRuleSets(store, answered.workflow_id)).own.rules;
  const rule = rules.find((r) => r.decision_id === answered.id && isLive(r));
  return rule
    ? { rule: learnedRuleJson(rule), words: ruleWords(rule) }
    : { rule: null, words: 'Nothing new learned from this answer' };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * The source a question's workflow reads, as rules are kept under it: as the question noted it,
 * else (a question asked before questions noted it) from its workflow; null when that is gone.
 */
export async function questionSourceKey(store: Store, decision: Decision): Promise<string | null> {
  const noted = decision.workflow_view?.source_key;
  if (noted) return noted;
  const workflow = await getWorkflow(store, decision.workflow_id).catch(() => null);
  return workflow ? sourceKeyOf(workflow) : null;
}

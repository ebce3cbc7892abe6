import { marksException } from '../../memory/exception.ts';
import { domainOf, words } from '../../memory/match.ts';
import { PUBLIC_MAIL_DOMAINS, STOPWORDS, type LearnerCase } from '../../agents/learner/proposal.ts';
import { CASE_MARKER } from '../../agents/learner/learner.ts';
import type { PlannedTurn, TurnInput } from '../turn-model.ts';
import { lastToolResults } from '../turn-model.ts';

const WHOLE_DOMAIN =
  /\b(anything|everything|all|any(one|body)?)\b[^.]*\b(from|at|by)\b[^.]*\b(this|that|the|their|these)\s+(company|domain|vendor|organi[sz]ation|org|shop|store|publisher|newsletter|team|firm|sender'?s? domain)\b|\banyone at\b|\bwhole domain\b/;
const TOPIC = /\b(about|mentioning|regarding|that mention|with)\b/;

function caseFrom(input: TurnInput): LearnerCase | null {
  const first = input.messages[0];
  const text = first?.content.map((b) => (b.type === 'textBlock' ? b.text : '')).join('') ?? '';
  const at = text.indexOf(CASE_MARKER);
  if (at < 0) return null;
  try {
    return JSON.parse(text.slice(at + CASE_MARKER.length)) as LearnerCase;
  } catch {
    return null;
  }
}

/** Keywords a note names that also appear in the message: distinctive words only. */
function noteKeywords(note: string, learnerCase: LearnerCase): string[] {
  const inMessage = words(`${learnerCase.subject}\n${learnerCase.snippet}`);
  return [...words(note)].filter((w) => w.length >= 4 && !STOPWORDS.has(w) && inMessage.has(w)).slice(0, 4);
}

/**
 * The offline learner: deterministic and narrow. The note decides the scope; without
 * one, the exact sender. A domain rule only when the note asks for it, and never for a
 * public mail provider.
 */
export function learnerTurn(input: TurnInput): PlannedTurn {
  const results = lastToolResults(input.messages);
  if (results.length > 0) {
    const last = results[0]!;
    const rejected = last.name === 'write_rule' && (last.result as { saved?: boolean }).saved === false;
    if (rejected)
      return { toolCalls: [{ name: 'no_rule', input: { reason: 'the rule I proposed was too broad' } }] };
    return { text: 'Done.' };
  }
  const learnerCase = caseFrom(input);
  if (!learnerCase)
    return { toolCalls: [{ name: 'no_rule', input: { reason: 'no decision to learn from' } }] };
  const note = learnerCase.note?.toLowerCase() ?? '';
  if (learnerCase.irreversible) return noRule('irreversible actions always ask');
  if (marksException(note)) return noRule('the person said this was a one-off');

  const domain = domainOf(learnerCase.sender);
  const action = learnerCase.chosen_action;
  const namesDomain =
    domain !== null && /\b(all|any|anything|everything|every)\b/.test(note) && mentions(note, domain);
  if ((WHOLE_DOMAIN.test(note) || namesDomain) && domain && !PUBLIC_MAIL_DOMAINS.has(domain))
    return write({ domain }, action, `Anything from ${domain} → ${action}`, 0.9);
  const keywords = TOPIC.test(note) ? noteKeywords(note, learnerCase) : [];
  if (keywords.length >= 2)
    return write({ keywords }, action, `Mail about ${keywords.join(' and ')} → ${action}`, 0.85);
  return write(
    { sender: learnerCase.sender },
    action,
    `Mail from ${learnerCase.sender} → ${action}`,
    note ? 0.85 : 0.75,
  );
}

function write(
  match: Record<string, unknown>,
  action: string,
  pattern: string,
  confidence: number,
): PlannedTurn {
  return { toolCalls: [{ name: 'write_rule', input: { match, action, pattern, confidence } }] };
}

function noRule(reason: string): PlannedTurn {
  return { toolCalls: [{ name: 'no_rule', input: { reason } }] };
}

/** Whether the note names exactly this domain (not one that merely ends or starts with it). */
function mentions(note: string, domain: string): boolean {
  const escaped = domain.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9.-])@?${escaped}($|[^a-z0-9-]|\\.(?![a-z0-9]))`).test(note);
}

/**
 * Answers from the record, for the Operator's read-only tools: why a decision was asked (its
 * reasoning as the run recorded it), what was done on a day (the audit log), the rules and
 * where each came from. Nothing here is written by a model.
 */
import { auditBetween } from '../audit/audit-between.ts';
import { readProfile } from '../profile/profile.ts';
import type { AuditEntry } from '../records/audit.ts';
import { isLive, RuleSchema } from '../records/rule.ts';
import { DecisionSchema, type Decision } from '../records/runs.ts';
import { listPending } from '../runs/decision-repository.ts';
import { keyedPage } from '../store/keyed-page.ts';
import { parseRecord } from '../store/records.ts';
import { getAll, listNewest, listPage, type Store } from '../store/store.ts';

/** Settled questions a phrase is matched against by words (the newest; by id, any). */
export const RECENT_DECISIONS = 500;
/** Live rules "what rules have you learned" lists (the newest). */
export const RULES_IN_WORDS = 100;

/** A decision as "why did you ask me about X" is answered. */
export interface DecisionWhy {
  decision_id: string;
  subject: string;
  sender: string;
  workflow_id: string;
  suggested: string;
  confidence: number;
  /** The model's reasoning for the item, as recorded when it asked. */
  reasoning: string;
  /** Why the gate asked instead of acting (low confidence, irreversible, ...). */
  asked_because: string;
  status: Decision['status'];
  answer: string | null;
}

/**
 * The decision a phrase names: by id (read by key), else the newest whose subject or sender
 * holds its words, among the waiting ones and the newest RECENT_DECISIONS settled.
 */
export async function findDecision(store: Store, query: string): Promise<DecisionWhy | null> {
  const lower = query.toLowerCase();
  const named = [...new Set(lower.match(/dec_[0-9a-z_]+/g) ?? [])];
  const byId = (await getAll(store, 'decisions', named)).find((d) => d !== undefined);
  if (byId) return whyOf(parseRecord(DecisionSchema, 'decisions', byId));
  const settled = await listNewest(store, 'decisions', { limit: RECENT_DECISIONS });
  const decisions = [
    ...(await listPending(store)),
    ...settled.items.map((r) => parseRecord(DecisionSchema, 'decisions', r)),
  ].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const words = lower.match(/[a-z0-9@.]{3,}/g)?.filter((w) => !STOP.has(w)) ?? [];
  const score = (d: Decision) => {
    const hay = `${d.subject} ${d.sender}`.toLowerCase();
    return words.filter((w) => hay.includes(w)).length;
  };
  const scored = decisions.map((d) => ({ d, score: score(d) })).sort((a, b) => b.score - a.score)[0];
  return scored && scored.score > 0 ? whyOf(scored.d) : null;
}

function whyOf(found: Decision): DecisionWhy {
  return {
    decision_id: found.id,
    subject: found.subject,
    sender: found.sender,
    workflow_id: found.workflow_id,
    suggested: found.suggested_action,
    confidence: found.confidence,
    reasoning: found.reasoning,
    asked_because: found.reason.replace(/_/g, ' '),
    status: found.status,
    answer: found.answer ? found.answer.action : null,
  };
}

const STOP = new Set([
  'why',
  'did',
  'you',
  'ask',
  'asked',
  'about',
  'the',
  'that',
  'this',
  'mail',
  'message',
  'email',
  'from',
  'me',
]);

/** What was done on one day of the profile's calendar: counts and one line per item outcome. */
export interface DayActivity {
  day: string;
  time_zone: string;
  runs: number;
  counts: Record<string, number>;
  lines: string[];
}

/** The audit log of `day` ("today", "yesterday" or YYYY-MM-DD), read in the profile's time zone. */
export async function activityOn(store: Store, day: string, now = new Date()): Promise<DayActivity> {
  const timeZone = (await readProfile(store)).time_zone;
  const date = dayOf(day, now, timeZone);
  // Every time zone's day lies within the UTC day before, the day and the day after.
  const noon = Date.parse(`${date}T12:00:00Z`);
  const span = [noon - 36 * 3_600_000, noon + 36 * 3_600_000].map((t) => new Date(t).toISOString());
  const entries = (await auditBetween(store, span[0]!, span[1]!)).filter(
    (e) => localDate(new Date(e.at), timeZone) === date,
  );
  const counts: Record<string, number> = {};
  const lines: string[] = [];
  for (const e of entries) {
    if (e.outcome === 'run_started' || e.outcome === 'run_finished') continue;
    const what = e.outcome === 'acted' && e.action ? e.action : e.outcome;
    counts[what] = (counts[what] ?? 0) + 1;
    lines.push(lineOf(e));
  }
  return {
    day: date,
    time_zone: timeZone,
    runs: new Set(entries.map((e) => e.run_id)).size,
    counts,
    lines: lines.slice(-20),
  };
}

function lineOf(e: AuditEntry): string {
  const item = e.subject ? `"${e.subject}"` : (e.item_id ?? 'an item');
  const by =
    e.decided_by === 'human' ? 'you decided' : e.decided_by === 'memory' ? 'a rule decided' : 'on its own';
  switch (e.outcome) {
    case 'acted':
      return `${e.action ?? 'acted'} ${item} (${by}, ${e.workflow_id})`;
    case 'declined':
      return `left ${item} alone (${by}, ${e.workflow_id})`;
    default:
      return `${e.outcome.replace(/_/g, ' ')}: ${item}${e.detail ? ` — ${e.detail}` : ''} (${e.workflow_id})`;
  }
}

function dayOf(day: string, now: Date, timeZone: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(day)) return day;
  const back = day === 'yesterday' ? 1 : 0;
  return localDate(new Date(now.getTime() - back * 86_400_000), timeZone);
}

function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/**
 * The newest RULES_IN_WORDS live rules (oldest first) with where each came from, as "what
 * rules have you learned" is answered: a page of rules read newest first, never every rule.
 */
export async function rulesInWords(store: Store): Promise<
  {
    rule_id: string;
    reads: string;
    action: string;
    source: string;
    workflow_id: string | null;
    from: string;
  }[]
> {
  const page = await keyedPage(
    (p) => listPage(store, 'rules', '', { ...p, descending: true }),
    RULES_IN_WORDS,
    null,
    (r) => isLive(parseRecord(RuleSchema, 'rules', r)),
  );
  return page.items
    .map((r) => parseRecord(RuleSchema, 'rules', r))
    .reverse()
    .map((r) => ({
      rule_id: r.id,
      reads: r.pattern ?? matchInWords(r.match),
      action: r.action,
      source: r.source,
      workflow_id: r.workflow_id,
      from:
        r.source === 'you'
          ? `you set it${r.note ? `: "${r.note}"` : ''}`
          : `learned from your answer to ${r.decision_id ?? 'a decision'}${r.note ? `, note "${r.note}"` : ''}`,
    }));
}

function matchInWords(match: Record<string, unknown>): string {
  if (typeof match.sender === 'string') return `mail from ${match.sender}`;
  if (typeof match.domain === 'string') return `anything from ${match.domain}`;
  return `mail with ${(match.keywords as string[]).join(' and ')}`;
}

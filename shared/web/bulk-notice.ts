/**
 * What a bulk answer's notice says (Activity's and the run page's), from the query its
 * redirect carries: `done`, `how`, `refused`, `left`, `once`, `learned` (how many rules it
 * taught that stand) and `learned_ids` (the newest few of them, comma-separated; activity-routes.ts). The
 * rules are read by id in the request's workspace and worded from what they are: the query
 * never supplies words, and an id that is malformed, unknown or not learned from an answer
 * is left out.
 */
import { isLive, RuleSchema, type Rule } from '../records/rule.ts';
import { ruleWords } from '../runs/learned.ts';
import { getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { label, plural } from './pages/ui.ts';

/** How many learned rules a notice names (each with its Undo); the rest are counted. */
export const LEARNED_SHOWN = 5;

/** A rule a bulk answer taught, as its notice shows it. */
export interface LearnedLine {
  id: string;
  /** "From now on: mail from a@b.example → archive it". */
  words: string;
  /** Still in force (Undo offered); false once revoked or replaced. */
  live: boolean;
  undone: boolean;
}

/** A bulk answer's notice: its sentence, the rules it taught, and where Undo returns to. */
export interface BulkNotice {
  words: string;
  /** How many rules it taught (the first LEARNED_SHOWN named in `rules`). */
  learnedCount: number;
  rules: LearnedLine[];
  /** Learned rules beyond those named. */
  more: number;
  /** Answers given "just this once": they taught nothing. */
  once: number;
  /** This page (path and query), where Undo returns. */
  back: string;
}

const count = (v: string | undefined) => (v && /^\d{1,6}$/.test(v) ? Number(v) : 0);
const RULE_ID = /^rule_[A-Za-z0-9_-]{1,80}$/;

/** The learned rules' ids a redirect carries: well-formed, distinct, at most LEARNED_SHOWN (else none). */
export function learnedIdsOf(value: string | undefined): string[] {
  const ids = (value ?? '').split(',').filter(Boolean);
  if (ids.length > LEARNED_SHOWN || !ids.every((id) => RULE_ID.test(id))) return [];
  return [...new Set(ids)];
}

/**
 * Of the rules a bulk answer taught (`taught`, in the order taught), the ids of those still in
 * force, newest first. They are read back by id: a later answer of the batch about the same
 * match replaces the rule an earlier one taught, or retires it when the two disagree, and the
 * order rules were made in is not that of their ids (their milliseconds can tie).
 */
export async function standingRuleIds(store: Store, taught: readonly string[]): Promise<string[]> {
  const ids = [...new Set(taught)];
  if (ids.length === 0) return [];
  const position = new Map(ids.map((id, i) => [id, i]));
  return (await getRecords(store, 'rules', RuleSchema, ids))
    .filter((r): r is Rule => r !== undefined && isLive(r))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || position.get(b.id)! - position.get(a.id)!)
    .map((r) => r.id);
}

/** The sentence of a bulk answer's notice, from its redirect's query (null: there was none). */
export function bulkWords(query: Record<string, string>): string | null {
  if (query.done === undefined) return null;
  const how = /^[a-z][a-z0-9_]{0,60}$/.test(query.how ?? '') ? query.how! : 'approve_suggested';
  const [done, refused, left] = [query.done, query.refused, query.left].map(count) as [
    number,
    number,
    number,
  ];
  const words: string[] = [];
  if (done === 0 && refused === 0 && left === 0)
    words.push('Nothing was selected: tick the questions first.');
  if (done > 0)
    words.push(
      how === 'approve_suggested'
        ? `Accepted ${plural(done, 'suggestion')}.`
        : `Answered ${plural(done, 'question')}: ${label(how)}.`,
    );
  if (refused > 0)
    words.push(
      `${refused} could not be taken: answered elsewhere, expired, or not an option for that question.`,
    );
  if (left > 0)
    words.push(
      `${plural(left, 'question')} left for you: a suggestion that cannot be undone is answered on its own.`,
    );
  return words.join(' ');
}

/**
 * The notice of the page at `url` (the request's), its learned rules read by id in one
 * batched read; null when the page was not reached from a bulk answer. Undo returns to this
 * page (without an earlier Undo's `undone`).
 */
export async function readBulkNotice(store: Store, url: string): Promise<BulkNotice | null> {
  const here = new URL(url);
  const query = Object.fromEntries(here.searchParams);
  const words = bulkWords(query);
  if (words === null) return null;
  const ids = learnedIdsOf(query.learned_ids);
  const read = ids.length > 0 ? await getRecords(store, 'rules', RuleSchema, ids) : [];
  const rules = read
    .filter((r): r is Rule => r !== undefined && r.decision_id !== null)
    .map((r) => ({ id: r.id, words: ruleWords(r), live: isLive(r), undone: r.deleted_at !== null }));
  const learnedCount = Math.max(count(query.learned), rules.length);
  return {
    words,
    learnedCount,
    rules,
    more: Math.max(0, learnedCount - Math.max(ids.length, rules.length)),
    once: count(query.once),
    back: backHere(here),
  };
}

function backHere(here: URL): string {
  const params = new URLSearchParams(here.searchParams);
  params.delete('undone');
  const search = params.toString();
  return search ? `${here.pathname}?${search}` : here.pathname;
}

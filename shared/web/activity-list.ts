/**
 * What Activity lists: the questions waiting in the request's workspace, filtered (`?workflow=
 * &run=&sender=`), 50 to a page, grouped within the page by run and then by sender domain.
 * A page is read by key: its questions plus one from the status index (a run's from the run's
 * key), after the cursor of the page before (`?after=`); what waits is counted from the index
 * without reading it, and each run shown is counted by its key. Nothing reads every waiting
 * question (docs/activity.md).
 */
import { z } from 'zod';
import { InvalidCursorError } from '../errors/index.ts';
import { domainOf } from '../memory/match.ts';
import { DecisionSchema, RunSchema, type Decision, type Run } from '../records/runs.ts';
import { fromMatches } from '../runs/answer-many.ts';
export { acceptableInBulk } from '../runs/answer-many.ts';
import { runDecisionPrefix } from '../runs/decision-repository.ts';
import { keyedPage, type StorePager } from '../store/keyed-page.ts';
import { decodeCursor, encodeCursor } from '../store/list-cursor.ts';
import { parseRecord } from '../store/records.ts';
import {
  countWithStatus,
  getAll,
  listPage,
  listStatusPage,
  type JsonRecord,
  type Store,
} from '../store/store.ts';
import { parseQuery } from './parse-query.ts';

/** Questions one Activity page shows. */
export const ACTIVITY_PAGE_SIZE = 50;

const filter = z
  .string()
  .trim()
  .max(320, { error: 'is too long' })
  .optional()
  .transform((v) => v || undefined);

/** Activity's query: its filters, and where the page starts (the `after` cursor a page gave). */
export const ActivityQuerySchema = z.object({
  workflow: filter,
  run: filter,
  sender: filter,
  after: z
    .string()
    .trim()
    .max(2000, { error: 'is too long' })
    .optional()
    .transform((v) => v || undefined),
});
export type ActivityQuery = z.infer<typeof ActivityQuerySchema>;

/** The query parsed, or a 400 naming what was wrong. */
export function parseActivityQuery(query: Record<string, string>): ActivityQuery {
  return parseQuery(ActivityQuerySchema, query);
}

/** One waiting question and its workflow's name as asked. */
export interface WaitingQuestion {
  decision: Decision;
  workflowName: string;
}

/** A run's questions on this page from one sender domain. */
export interface DomainGroup {
  domain: string;
  shown: WaitingQuestion[];
}

/** A run's questions on this page, by sender domain. */
export interface RunGroup {
  runId: string;
  workflowName: string;
  domains: DomainGroup[];
  shown: WaitingQuestion[];
  /** The run's questions waiting on every page, counted by its key (null: a run from before keys). */
  waiting: number | null;
}

export interface ActivityList {
  query: ActivityQuery;
  groups: RunGroup[];
  /** Questions waiting in the workspace, unfiltered: what the sidebar's badge counts. */
  waiting: number;
  /** Whether a filter is set (then `waiting` counts more than the filters match). */
  filtered: boolean;
  /** How many questions the pages before this one showed. */
  offset: number;
  /** How many this page shows. */
  shown: number;
  /** The next page's `after` (null: this is the last page). */
  next: string | null;
  /** What the filters can choose from: the workflows and runs that wait. */
  choices: { workflows: Choice[]; runs: Choice[] };
}

export interface Choice {
  value: string;
  text: string;
}

/** The sender's domain a question is grouped under (its whole address when it has none). */
export function senderDomain(sender: string): string {
  return domainOf(sender.toLowerCase()) || sender.toLowerCase();
}

/** Whether a waiting question passes the filters. */
function matches(d: Decision, query: ActivityQuery): boolean {
  if (d.status !== 'pending') return false;
  if (query.workflow && d.workflow_id !== query.workflow) return false;
  if (query.run && d.run_id !== query.run) return false;
  if (query.sender) {
    const from = query.sender.toLowerCase();
    const sender = d.sender.toLowerCase();
    if (!fromMatches(sender, from) && !sender.includes(from)) return false;
  }
  return true;
}

const LIST = 'activity';

/** Where a page starts: how many the pages before showed, and the store's cursor. */
function startOf(after: string | undefined): { offset: number; cursor: string | null } {
  if (after === undefined) return { offset: 0, cursor: null };
  const { at } = decodeCursor([LIST], after);
  const cut = at.indexOf('\n');
  const offset = at.slice(0, cut);
  if (cut < 0 || !/^\d{1,7}$/.test(offset))
    throw new InvalidCursorError('after: not a page Activity gave; start again without it');
  return { offset: Number(offset), cursor: at.slice(cut + 1) || null };
}

const asDecision = (r: JsonRecord) => parseRecord(DecisionSchema, 'decisions', r);
const asRun = (r: JsonRecord): Run => parseRecord(RunSchema, 'runs', r);

/**
 * The store pages a page is read from: a keyed run's questions by its key when the run filter
 * names one; else the status index (what waits, a page at a time).
 */
function pagerFor(store: Store, run: Run | undefined): StorePager {
  if (run?.keyed) return (p) => listPage(store, 'decisions', runDecisionPrefix(run.id), p);
  return (p) => listStatusPage(store, 'decisions', 'pending', p);
}

/** One page of Activity in `store`'s workspace. */
export async function readActivity(store: Store, query: ActivityQuery): Promise<ActivityList> {
  const start = startOf(query.after);
  const [waitingRuns, waiting] = await Promise.all([
    store.listWithStatus('runs', 'waiting'),
    countWithStatus(store, 'decisions', 'pending'),
  ]);
  const runs = waitingRuns.map(asRun);
  const filteredRun = query.run
    ? (runs.find((r) => r.id === query.run) ?? (await runNamed(store, query.run)))
    : undefined;
  const page = await keyedPage(pagerFor(store, filteredRun), ACTIVITY_PAGE_SIZE, start.cursor, (r) =>
    matches(asDecision(r), query),
  );
  const shown = page.items.map(asDecision).map((decision) => ({
    decision,
    workflowName: decision.workflow_view?.name ?? decision.workflow_id,
  }));
  const keyed = new Set(runs.filter((r) => r.keyed).map((r) => r.id));
  if (filteredRun?.keyed) keyed.add(filteredRun.id);
  const groups = await Promise.all(
    groupByRun(shown).map(async (g) => ({
      ...g,
      waiting: keyed.has(g.runId)
        ? await countWithStatus(store, 'decisions', 'pending', runDecisionPrefix(g.runId))
        : null,
    })),
  );
  return {
    query,
    groups,
    waiting,
    filtered: Boolean(query.workflow || query.run || query.sender),
    offset: start.offset,
    shown: shown.length,
    next:
      page.next_cursor === null
        ? null
        : encodeCursor(LIST, `${start.offset + shown.length}\n${page.next_cursor}`),
    choices: await choicesOf(store, runs),
  };
}

async function runNamed(store: Store, id: string): Promise<Run | undefined> {
  const raw = await store.get('runs', id);
  return raw ? asRun(raw) : undefined;
}

/**
 * The page's questions by run (in the order the page reaches them), each run's by sender
 * domain: the domains with the most questions first (the biggest bulk answers first).
 */
export function groupByRun(questions: readonly WaitingQuestion[]): Omit<RunGroup, 'waiting'>[] {
  const runs = new Map<string, WaitingQuestion[]>();
  for (const q of questions) runs.set(q.decision.run_id, [...(runs.get(q.decision.run_id) ?? []), q]);
  return [...runs.entries()].map(([runId, shown]) => {
    const byDomain = new Map<string, WaitingQuestion[]>();
    for (const q of shown) {
      const domain = senderDomain(q.decision.sender);
      byDomain.set(domain, [...(byDomain.get(domain) ?? []), q]);
    }
    const domains = [...byDomain.entries()]
      .sort(([da, a], [db, b]) => b.length - a.length || da.localeCompare(db))
      .map(([domain, qs]) => ({ domain, shown: qs }));
    return { runId, workflowName: shown[0]!.workflowName, domains, shown };
  });
}

/** The filters' choices: the waiting runs (the status index of runs) and their workflows, by name. */
async function choicesOf(store: Store, runs: readonly Run[]): Promise<ActivityList['choices']> {
  const workflowIds = [...new Set(runs.map((r) => r.workflow_id))];
  const records = await getAll(store, 'workflows', workflowIds);
  const names = new Map(
    workflowIds.map((id, i) => {
      const name = records[i]?.name;
      return [id, typeof name === 'string' ? name : id];
    }),
  );
  const byText = (a: Choice, b: Choice) => a.text.localeCompare(b.text);
  return {
    workflows: workflowIds.map((id) => ({ value: id, text: names.get(id)! })).sort(byText),
    runs: [...runs]
      .sort((a, b) => a.started_at.localeCompare(b.started_at))
      .map((r) => ({ value: r.id, text: `${names.get(r.workflow_id)!} · ${r.id}` })),
  };
}

/**
 * What accepting the suggestions of `questions` does, in words: "archive 23, file a ticket
 * for 4", the most common first.
 */
export function describeSuggestions(questions: readonly Pick<Decision, 'suggested_action'>[]): string {
  const counts = new Map<string, number>();
  for (const q of questions) counts.set(q.suggested_action, (counts.get(q.suggested_action) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([action, n]) => suggestionWords(action, n))
    .join(', ');
}

const WORDS: Record<string, (n: number) => string> = {
  archive: (n) => `archive ${n}`,
  delete: (n) => `delete ${n}`,
  skip: (n) => `leave ${n} alone`,
  draft_reply: (n) => `draft a reply to ${n}`,
  send_reply: (n) => `send a reply to ${n}`,
  file_ticket: (n) => `file a ticket for ${n}`,
};

function suggestionWords(action: string, n: number): string {
  return WORDS[action]?.(n) ?? `${action.replace(/__/g, ' ').replace(/_/g, ' ')}: ${n}`;
}

/** Whether `path` is an Activity page (its filters and page) a form may return to. */
export function isActivityPath(path: string | undefined): path is string {
  return path !== undefined && /^\/activity(\?[\w%=&.@+-]*)?$/.test(path);
}

/** Whether `path` is a page a bulk answer or a row's answer may return to: Activity, or a run's page. */
export function isReturnPath(path: string | undefined): path is string {
  return isActivityPath(path) || (path !== undefined && /^\/runs\/[\w-]{1,120}(\?[\w%=&.@+-]*)?$/.test(path));
}

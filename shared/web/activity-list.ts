/**
 * What Activity lists: the questions waiting in every workspace, filtered (`?workflow=&run=
 * &sender=`), grouped by run and then by sender domain, 50 to a page (`?page=`). The waiting
 * set is the one read of the status index the sidebar's badge already makes in the request
 * (waiting-everywhere.ts): what waits, never the history, so a page reads nothing more.
 */
import { z } from 'zod';
import { domainOf } from '../memory/match.ts';
import type { Decision } from '../records/runs.ts';
import { fromMatches } from '../runs/answer-many.ts';
export { acceptableInBulk } from '../runs/answer-many.ts';
import type { EngineDeps } from '../runs/deps.ts';
import type { WorkspaceLabel } from './pages/layout.ts';
import { parseQuery } from './parse-query.ts';
import type { WaitingIn } from './waiting-everywhere.ts';

/** Questions one Activity page shows. */
export const ACTIVITY_PAGE_SIZE = 50;

const filter = z
  .string()
  .trim()
  .max(320, { error: 'is too long' })
  .optional()
  .transform((v) => v || undefined);

/** Activity's query: its filters and page. */
export const ActivityQuerySchema = z.object({
  workflow: filter,
  run: filter,
  sender: filter,
  page: z.coerce
    .number({ error: 'must be a page number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be 1 or more' })
    .default(1),
});
export type ActivityQuery = z.infer<typeof ActivityQuerySchema>;

/** The query parsed, or a 400 naming what was wrong. */
export function parseActivityQuery(query: Record<string, string>): ActivityQuery {
  return parseQuery(ActivityQuerySchema, query);
}

/** One waiting question with where it waits. */
export interface WaitingQuestion {
  decision: Decision;
  workspace: WorkspaceLabel | null;
  engine: EngineDeps;
  workflowName: string;
}

/** A run's questions from one sender domain: those on this page, and counts over every page. */
export interface DomainGroup {
  domain: string;
  shown: WaitingQuestion[];
  /** Every matching question of the group, on any page. */
  all: WaitingQuestion[];
}

/** A run's matching questions on this page, by sender domain. */
export interface RunGroup {
  workspace: WorkspaceLabel | null;
  runId: string;
  workflowName: string;
  domains: DomainGroup[];
  /** Every matching question of the run, on any page. */
  all: WaitingQuestion[];
}

export interface ActivityList {
  query: ActivityQuery;
  groups: RunGroup[];
  /** Questions matching the filters, on every page. */
  matching: number;
  /** Questions waiting, unfiltered: what the sidebar's badge counts. */
  waiting: number;
  pages: number;
  /** What the filters can choose from: workflows and runs with questions waiting. */
  choices: { workflows: Choice[]; runs: Choice[] };
}

export interface Choice {
  value: string;
  text: string;
  count: number;
}

/** The sender's domain a question is grouped under (its whole address when it has none). */
export function senderDomain(sender: string): string {
  return domainOf(sender.toLowerCase()) || sender.toLowerCase();
}

/** Whether a question passes the filters. */
function matches(q: WaitingQuestion, query: ActivityQuery): boolean {
  const d = q.decision;
  if (query.workflow && d.workflow_id !== query.workflow) return false;
  if (query.run && d.run_id !== query.run) return false;
  if (query.sender) {
    const from = query.sender.toLowerCase();
    const sender = d.sender.toLowerCase();
    if (!fromMatches(sender, from) && !sender.includes(from)) return false;
  }
  return true;
}

/** The questions of every workspace, flattened, each with its workflow's name as asked. */
export function waitingQuestions(everywhere: readonly WaitingIn[]): WaitingQuestion[] {
  return everywhere.flatMap(({ workspace, engine, pending }) =>
    pending.map((decision) => ({
      decision,
      workspace,
      engine,
      workflowName: decision.workflow_view?.name ?? decision.workflow_id,
    })),
  );
}

const runKey = (q: WaitingQuestion) => `${q.workspace?.id ?? ''}\u0000${q.decision.run_id}`;
const oldestFirst = (a: WaitingQuestion, b: WaitingQuestion) =>
  a.decision.created_at.localeCompare(b.decision.created_at) || a.decision.id.localeCompare(b.decision.id);

/**
 * The questions in Activity's order: runs by their oldest question, within a run the sender
 * domains with the most questions first (the biggest bulk answers first), oldest first within.
 */
export function inActivityOrder(questions: readonly WaitingQuestion[]): WaitingQuestion[][][] {
  const runs = new Map<string, Map<string, WaitingQuestion[]>>();
  for (const q of [...questions].sort(oldestFirst)) {
    const byDomain = runs.get(runKey(q)) ?? new Map<string, WaitingQuestion[]>();
    runs.set(runKey(q), byDomain);
    const domain = senderDomain(q.decision.sender);
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), q]);
  }
  return [...runs.values()].map((byDomain) =>
    [...byDomain.entries()]
      .sort(([da, a], [db, b]) => b.length - a.length || da.localeCompare(db))
      .map(([, qs]) => qs),
  );
}

/** One page of Activity from what waits everywhere. */
export function activityList(everywhere: readonly WaitingIn[], query: ActivityQuery): ActivityList {
  const all = waitingQuestions(everywhere);
  const matching = all.filter((q) => matches(q, query));
  const ordered = inActivityOrder(matching);
  const flat = ordered.flat(2);
  const pages = Math.max(1, Math.ceil(flat.length / ACTIVITY_PAGE_SIZE));
  const start = (Math.min(query.page, pages) - 1) * ACTIVITY_PAGE_SIZE;
  const onPage = new Set(flat.slice(start, start + ACTIVITY_PAGE_SIZE));
  const groups: RunGroup[] = [];
  for (const run of ordered) {
    const domains = run
      .map((qs) => ({
        domain: senderDomain(qs[0]!.decision.sender),
        all: qs,
        shown: qs.filter((q) => onPage.has(q)),
      }))
      .filter((g) => g.shown.length > 0);
    const first = run[0]![0]!;
    if (domains.length > 0)
      groups.push({
        workspace: first.workspace,
        runId: first.decision.run_id,
        workflowName: first.workflowName,
        domains,
        all: run.flat(),
      });
  }
  return {
    query: { ...query, page: Math.min(query.page, pages) },
    groups,
    matching: flat.length,
    waiting: all.length,
    pages,
    choices: {
      workflows: choicesOf(all, (q) => [q.decision.workflow_id, q.workflowName]),
      runs: runChoices(all),
    },
  };
}

function choicesOf(
  all: readonly WaitingQuestion[],
  pick: (q: WaitingQuestion) => [string, string],
): Choice[] {
  const found = new Map<string, Choice>();
  for (const q of all) {
    const [value, text] = pick(q);
    const choice = found.get(value) ?? { value, text, count: 0 };
    choice.count += 1;
    found.set(value, choice);
  }
  return [...found.values()].sort((a, b) => a.text.localeCompare(b.text));
}

function runChoices(all: readonly WaitingQuestion[]): Choice[] {
  return choicesOf(all, (q) => [q.decision.run_id, `${q.workflowName} · ${q.decision.run_id}`]);
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

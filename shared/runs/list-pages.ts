/**
 * The lists the CLI prints and the API returns, a page at a time, each read by key: runs and
 * settled questions from the by-time index, rules by id, what is still moving from the status
 * index, a run's questions and audit by the run's key. No page reads a whole collection; see
 * docs/lists.md for each list's order and cursor.
 */
import { auditOfRun } from '../audit/audit.ts';
import { NotFoundError } from '../errors/index.ts';
import type { AuditEntry } from '../records/audit.ts';
import { ruleFound } from '../memory/rules-repository.ts';
import { RuleSchema, type Rule } from '../records/rule.ts';
import { DecisionSchema, RunSchema, type Decision, type Run, type RunStatus } from '../records/runs.ts';
import { keyedPage } from '../store/keyed-page.ts';
import { decodeCursor, encodeCursor } from '../store/list-cursor.ts';
import { parseRecord } from '../store/records.ts';
import {
  isIndexed,
  listNewest,
  listPage,
  listStatusPage,
  type JsonRecord,
  type Store,
} from '../store/store.ts';
import { fromMatches } from './answer-many.ts';
import { decisionsOfRun } from './decision-repository.ts';

/** Items per page when none is asked for, and the most a page holds. */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

/** A page of a list: `next_cursor` names the next page (null at the last). */
export interface ListPage<T> {
  items: T[];
  next_cursor: string | null;
}

/** Which page: how many, and the `next_cursor` of the page before (absent: the first). */
export interface PageAsk {
  limit: number;
  cursor?: string | undefined;
}

/** Runs, newest first; filtered by workflow and status. */
export async function runsPage(
  store: Store,
  ask: PageAsk & { workflow?: string | undefined; status?: RunStatus | undefined },
): Promise<ListPage<Run>> {
  const keep = (r: Record<string, unknown>) =>
    (!ask.workflow || r.workflow_id === ask.workflow) && (!ask.status || r.status === ask.status);
  if (isIndexed('runs', ask.status)) {
    // Running or waiting: the status index holds only what is moving.
    const at = atOf(['runs-moving'], ask.cursor);
    const runs = (await store.listWithStatus('runs', ask.status)).map(asRun).filter(keep);
    return inMemory('runs-moving', runs, (r) => `${r.started_at}#${r.id}`, 'newest', ask.limit, at);
  }
  const at = atOf(['runs'], ask.cursor);
  const page = await keyedPage((p) => listNewest(store, 'runs', p), ask.limit, at?.at ?? null, keep);
  return { items: page.items.map(asRun), next_cursor: cursorOf('runs', page.next_cursor) };
}

export type DecisionStatus = Decision['status'];

/**
 * Questions, waiting and settled: a run's, oldest first (by the run's key); else the waiting
 * ones in the status index's order (DynamoDB: oldest first; JSON files: by id, so a run's
 * questions together), a page plus one at a time, then the answered and expired newest first (the
 * by-time index). Filtered by status, run, workflow and sender (an address or a domain).
 */
export async function decisionsPage(
  store: Store,
  ask: PageAsk & {
    status?: DecisionStatus | undefined;
    run?: string | undefined;
    workflow?: string | undefined;
    from?: string | undefined;
  },
): Promise<ListPage<Decision>> {
  const from = ask.from?.trim().toLowerCase();
  const keep = (d: Decision) =>
    (!ask.status || d.status === ask.status) &&
    (!ask.run || d.run_id === ask.run) &&
    (!ask.workflow || d.workflow_id === ask.workflow) &&
    (!from || fromMatches(d.sender, from));
  const oldestFirst = (d: Decision) => `${d.created_at}#${d.id}`;

  if (ask.run !== undefined) {
    const at = atOf(['decisions-of-run'], ask.cursor);
    const raw = await store.get('runs', ask.run);
    if (!raw) throw new NotFoundError(`no run "${ask.run}": see \`handoff runs\``);
    const ofRun = (await decisionsOfRun(store, asRun(raw))).filter(keep);
    return inMemory('decisions-of-run', ofRun, oldestFirst, 'oldest', ask.limit, at);
  }
  const settled = async (limit: number, cursor: string | null) => {
    const page = await keyedPage(
      (p) => listNewest(store, 'decisions', p),
      limit,
      cursor,
      (r) => keep(asDecision(r)),
    );
    return {
      items: page.items.map(asDecision),
      next_cursor: cursorOf('decisions-settled', page.next_cursor),
    };
  };
  const at = atOf(
    ask.status === 'pending'
      ? ['decisions-waiting']
      : ask.status
        ? ['decisions-settled']
        : SETTLED_AFTER_WAITING,
    ask.cursor,
  );
  if (ask.status === 'answered' || ask.status === 'expired' || at?.list === 'decisions-settled')
    return settled(ask.limit, at?.at || null);

  // Waiting: pages of the status index, read ahead only as far as the filters need to fill this one.
  const waitingPage = await keyedPage(
    (p) => listStatusPage(store, 'decisions', 'pending', p),
    ask.limit,
    (at?.list === 'decisions-waiting' && at.at) || null,
    (r) => keep(asDecision(r)),
  );
  const waiting = {
    items: waitingPage.items.map(asDecision),
    next_cursor: cursorOf('decisions-waiting', waitingPage.next_cursor),
  };
  if (waiting.next_cursor !== null || ask.status === 'pending') return waiting;
  // The waiting ones end on this page: the settled ones follow, newest first.
  const room = ask.limit - waiting.items.length;
  const rest = await settled(Math.max(room, 1), null);
  if (room === 0)
    return {
      items: waiting.items,
      next_cursor: rest.items.length > 0 ? encodeCursor('decisions-settled', '') : null,
    };
  return { items: [...waiting.items, ...rest.items], next_cursor: rest.next_cursor };
}

/**
 * Rules, oldest first (rule ids sort by when they were made), superseded ones included,
 * deleted ones not; filtered by workflow, source and words (`search`: ruleFound).
 */
export async function rulesPage(
  store: Store,
  ask: PageAsk & {
    workflow?: string | undefined;
    source?: Rule['source'] | undefined;
    search?: string | undefined;
  },
): Promise<ListPage<Rule>> {
  const at = atOf(['rules'] as const, ask.cursor);
  const page = await keyedPage(
    (p) => listPage(store, 'rules', '', p),
    ask.limit,
    at?.at ?? null,
    (r) =>
      (r.deleted_at ?? null) === null &&
      (!ask.workflow || r.workflow_id === ask.workflow) &&
      (!ask.source || r.source === ask.source) &&
      (!ask.search || ruleFound(parseRecord(RuleSchema, 'rules', r), ask.search)),
  );
  return {
    items: page.items.map((r) => parseRecord(RuleSchema, 'rules', r)),
    next_cursor: cursorOf('rules', page.next_cursor),
  };
}

/**
 * The audit log: one run's entries oldest first (read by the run's key; NotFoundError for an
 * unknown run); else run by run, newest run first, each run's entries oldest first.
 */
export async function auditPage(
  store: Store,
  ask: PageAsk & { run?: string | undefined },
): Promise<ListPage<AuditEntry>> {
  const oldestFirst = (e: AuditEntry) => `${e.at}#${e.id}`;
  if (ask.run !== undefined) {
    const at = atOf(['audit-of-run'], ask.cursor);
    const raw = await store.get('runs', ask.run);
    if (!raw) throw new NotFoundError(`no run "${ask.run}": see \`handoff runs\``);
    const entries = await auditOfRun(store, asRun(raw));
    return inMemory('audit-of-run', entries, oldestFirst, 'oldest', ask.limit, at);
  }
  const at = atOf(['audit'], ask.cursor);
  // The cursor names the run page the next entry is in (its store cursor) and the last entry shown of it.
  const [startAt = '', afterEntry = ''] = at?.at.split('\n') ?? [];
  let runCursor: string | null = startAt || null;
  let after = afterEntry;
  const shown: AuditEntry[] = [];
  for (;;) {
    const runs = await listNewest(store, 'runs', { limit: 1, cursor: runCursor });
    const run = runs.items[0];
    if (!run) return { items: shown, next_cursor: null };
    const entries = (await auditOfRun(store, asRun(run)))
      .map((e) => ({ e, key: oldestFirst(e) }))
      .filter(({ key }) => key > after);
    for (const { e, key } of entries) {
      if (shown.length === ask.limit)
        return { items: shown, next_cursor: encodeCursor('audit', `${runCursor ?? ''}\n${after}`) };
      shown.push(e);
      after = key;
    }
    if (runs.next_cursor === null) return { items: shown, next_cursor: null };
    runCursor = runs.next_cursor;
    after = '';
  }
}

const SETTLED_AFTER_WAITING = ['decisions-waiting', 'decisions-settled'];

/** Where a list's cursor resumes, checked against the lists that may have given it. */
export function atOf(lists: readonly string[], cursor: string | undefined) {
  return cursor === undefined ? undefined : decodeCursor(lists, cursor);
}

export const cursorOf = (list: string, at: string | null) => (at === null ? null : encodeCursor(list, at));

/**
 * A page of a set the read already bounds (what is moving, one run's records), sorted by `key`
 * and taken after the cursor; the cursor is the last shown's key.
 */
export function inMemory<T>(
  list: string,
  records: readonly T[],
  key: (record: T) => string,
  order: 'oldest' | 'newest',
  limit: number,
  at: { list: string; at: string } | undefined,
): ListPage<T> {
  const from = at?.list === list ? at.at : undefined;
  const keyed = records
    .map((record) => ({ record, key: key(record) }))
    .filter((k) => from === undefined || (order === 'oldest' ? k.key > from : k.key < from))
    .sort((a, b) => (order === 'oldest' ? 1 : -1) * (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const shown = keyed.slice(0, limit);
  return {
    items: shown.map((k) => k.record),
    next_cursor: keyed.length > limit ? encodeCursor(list, shown.at(-1)!.key) : null,
  };
}

const asRun = (r: JsonRecord): Run => parseRecord(RunSchema, 'runs', r);
const asDecision = (r: JsonRecord): Decision => parseRecord(DecisionSchema, 'decisions', r);

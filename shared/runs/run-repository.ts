import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';
import os from 'node:os';
import { NotFoundError } from '../errors/index.ts';
import { stableId } from '../store/ids.ts';
import { keyedPage } from '../store/keyed-page.ts';
import { getRecord, listRecords, parseRecord } from '../store/records.ts';
import { listNewest, type Store } from '../store/store.ts';
import { RunSchema, type Run } from '../records/runs.ts';

export async function getRun(store: Store, id: string): Promise<Run> {
  const run = await getRecord(store, 'runs', RunSchema, id);
  if (!run) throw new NotFoundError(`no run "${id}": see \`handoff runs\``);
  return run;
}

/** Every run, newest first. */
export async function listRuns(store: Store): Promise<Run[]> {
  return (await listRecords(store, 'runs', RunSchema)).sort((a, b) =>
    b.started_at.localeCompare(a.started_at),
  );
}

/**
 * A page of runs, newest first, from the store's time index: the runs it shows plus one, and
 * the cursor of the next page (null at the last).
 */
export async function latestRuns(
  store: Store,
  limit: number,
  cursor: string | null = null,
): Promise<{ runs: Run[]; next_cursor: string | null }> {
  const page = await listNewest(store, 'runs', { limit, cursor });
  return { runs: page.items.map((r) => parseRecord(RunSchema, 'runs', r)), next_cursor: page.next_cursor };
}

/**
 * The runs started at or after `since` (and at least the `atLeast` newest), newest first: pages
 * of the time index read until one reaches past `since`, so a week of runs costs a week's
 * runs, whatever came before.
 */
export async function runsSince(store: Store, since: string, atLeast = 0): Promise<Run[]> {
  const runs: Run[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await latestRuns(store, PAGE, cursor);
    runs.push(...page.runs);
    const older = runs.length > 0 && runs.at(-1)!.started_at < since;
    if (page.next_cursor === null || (older && runs.length >= atLeast)) break;
    cursor = page.next_cursor;
  }
  return runs.filter((r, i) => r.started_at >= since || i < atLeast);
}

const PAGE = 50;

/** One workflow's runs, newest first (one indexed Query where the store has it). */
export async function listRunsOf(store: Store, workflowId: string): Promise<Run[]> {
  if (!store.listRunsOf) return (await listRuns(store)).filter((r) => r.workflow_id === workflowId);
  return (await store.listRunsOf(workflowId)).map((r) => RunSchema.parse(r));
}

/**
 * A workflow's newest `limit` runs, newest first: the backend's runs-by-workflow index with a
 * Limit, else the by-time index walked with the workflow as a filter; never every run.
 */
export async function newestRunsOf(store: Store, workflowId: string, limit: number): Promise<Run[]> {
  if (store.listRunsOf)
    return (await store.listRunsOf(workflowId, limit)).slice(0, limit).map((r) => RunSchema.parse(r));
  const page = await keyedPage(
    (p) => listNewest(store, 'runs', p),
    limit,
    null,
    (r) => r.workflow_id === workflowId,
  );
  return page.items.map((r) => RunSchema.parse(r));
}

/** The runs in one status (indexed for running and waiting runs). */
export async function runsWithStatus(store: Store, status: Run['status']): Promise<Run[]> {
  return (await store.listWithStatus('runs', status)).map((r) => RunSchema.parse(r));
}

export function thisProcess(): { pid: number; host: string } {
  return { pid: process.pid, host: os.hostname() };
}

/**
 * The parts an id derived from a caller's input is hashed from: outside the default workspace
 * the workspace id comes first, so equal keys in two workspaces never make the same id (the
 * default's ids are as they were before workspaces).
 */
function scoped(workspace: string, ...parts: string[]): string[] {
  return workspace === DEFAULT_WORKSPACE ? parts : [`workspace:${workspace}`, ...parts];
}

/** The id of the run a schedule starts when it fires at `scheduledTime`: every delivery of that firing names it. */
export function scheduledRunId(workspace: string, workflowId: string, scheduledTime: string): string {
  return stableId('run', ...scoped(workspace, workflowId, scheduledTime));
}

/** The id of the run a webhook call with `Idempotency-Key: key` starts: a retry with the same key names it. */
export function webhookRunId(workspace: string, workflowId: string, key: string): string {
  return stableId('run', ...scoped(workspace, workflowId, 'webhook', key));
}

import os from 'node:os';
import { NotFoundError } from '../errors/index.ts';
import { newId, stableId } from '../store/ids.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { EMPTY_COUNTS, RunSchema, type Run, type RunTrigger } from '../records/runs.ts';

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

/** One workflow's runs, newest first (one indexed Query where the store has it). */
export async function listRunsOf(store: Store, workflowId: string): Promise<Run[]> {
  if (!store.listRunsOf) return (await listRuns(store)).filter((r) => r.workflow_id === workflowId);
  return (await store.listRunsOf(workflowId)).map((r) => RunSchema.parse(r));
}

/** Creates a running run; with `id` given, a second create of the same id throws RecordExistsError. */
/** The runs in one status (indexed for running and waiting runs). */
export async function runsWithStatus(store: Store, status: Run['status']): Promise<Run[]> {
  return (await store.listWithStatus('runs', status)).map((r) => RunSchema.parse(r));
}

export async function createRun(
  store: Store,
  workflowId: string,
  trigger: RunTrigger,
  id = newId('run'),
): Promise<Run> {
  const run: Omit<Run, 'version'> = {
    id,
    workflow_id: workflowId,
    status: 'running',
    trigger,
    counts: { ...EMPTY_COUNTS },
    interrupt_id: null,
    dispatch: null,
    snapshot: null,
    error: null,
    owner: thisProcess(),
    started_at: new Date().toISOString(),
    finished_at: null,
  };
  return RunSchema.parse(await store.create('runs', run));
}

/** Applies a change to the latest version of a run, conditionally. */
export async function changeRun(store: Store, id: string, change: (run: Run) => Partial<Run>): Promise<Run> {
  const run = await getRun(store, id);
  return RunSchema.parse(await store.update('runs', { ...run, ...change(run) }, run.version));
}

export function thisProcess(): { pid: number; host: string } {
  return { pid: process.pid, host: os.hostname() };
}

/** The id of the run a schedule starts when it fires at `scheduledTime`: every delivery of that firing names it. */
export function scheduledRunId(workflowId: string, scheduledTime: string): string {
  return stableId('run', workflowId, scheduledTime);
}

/** The id of the run a webhook call with `Idempotency-Key: key` starts: a retry with the same key names it. */
export function webhookRunId(workflowId: string, key: string): string {
  return stableId('run', workflowId, 'webhook', key);
}

/**
 * Why a run found nothing to do, in a person's words: "no new mail since 08:00 UTC" rather
 * than "skipped — 0 acted". Read only when the trigger finds nothing (one indexed read).
 */
import type { Run } from '../records/runs.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { newestRunsOf } from './run-repository.ts';

/** How many of the workflow's newest runs are looked at for the one before. */
const RUNS_LOOKED_AT = 20;

/** `no new mail since 08:00 UTC` (or `since 2026-12-04 08:00 UTC`, or `no new mail` on a first run). */
export async function quietReason(
  store: Store,
  workflow: Workflow,
  run: Run,
  now = new Date(),
): Promise<string> {
  const noun = workflow.source.type === 'event' ? 'events' : 'mail';
  // The run before this one, among the workflow's newest (a run of failures in between is rare).
  const before = (await newestRunsOf(store, workflow.id, RUNS_LOOKED_AT)).find(
    (r) => r.id !== run.id && r.status !== 'failed' && r.started_at < run.started_at,
  );
  if (!before) return `no new ${noun} in the source`;
  return `no new ${noun} since ${sinceText(before.started_at, now)}`;
}

function sinceText(iso: string, now: Date): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const time = `${at.toISOString().slice(11, 16)} UTC`;
  const sameDay = at.toISOString().slice(0, 10) === now.toISOString().slice(0, 10);
  return sameDay ? time : `${at.toISOString().slice(0, 10)} ${time}`;
}

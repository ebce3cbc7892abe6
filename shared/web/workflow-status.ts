/**
 * What the Workflows and Schedules pages say about each workflow: its trigger in words
 * (with the time zone), next and last run, the last result, whether its schedule is
 * paused, and whether it can run at all (credentials set, source there).
 */
import { readProfile } from '../profile/profile.ts';
import type { Run } from '../records/runs.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { newestRunsOf } from '../runs/run-repository.ts';
import { describeCounts } from '../runs/counts.ts';
import { getScheduleState, nextFirings, type Firing } from '../schedules/schedules.ts';
import { scheduleInWords } from '../schedules/words.ts';
import { readinessOf, type Readiness } from '../workflows/readiness.ts';
import type { Workflow } from '../workflows/schema.ts';

export interface WorkflowStatus {
  workflow: Workflow;
  /** "weekdays at 08:00 (Europe/Paris)", "when a webhook arrives", "when you press Run now". */
  trigger: string;
  paused: boolean;
  next: Firing | null;
  last: Run | null;
  /** The last run's result in one line. */
  lastResult: string | null;
  readiness: Readiness;
  /** Another workflow in the workspace has the same name. */
  sameNameAs: string | null;
}

/** The last run's outcome as the pages print it. */
export function resultOf(run: Run): string {
  if (run.status === 'failed') return `failed: ${run.error ?? 'see the run'}`;
  if (run.status === 'skipped') return `skipped: ${run.skip_reason ?? 'nothing new'}`;
  if (run.status === 'running') return 'running now';
  if (run.status === 'waiting') return `waiting for you: ${describeCounts(run.counts)}`;
  return describeCounts(run.counts);
}

/** The trigger of a workflow in words, read in `timeZone`. */
export function triggerInWords(workflow: Workflow, timeZone: string): string {
  if (workflow.trigger.schedule !== undefined) return scheduleInWords(workflow.trigger.schedule, timeZone);
  return workflow.trigger.webhook ? 'when a webhook arrives' : 'when you press Run now';
}

/** The status of each workflow (a few keyed reads each). */
export async function workflowStatuses(
  engine: EngineDeps,
  workflows: Workflow[],
  now = new Date(),
): Promise<WorkflowStatus[]> {
  const [profile, names] = await Promise.all([readProfile(engine.store), engine.credentials.names()]);
  return Promise.all(
    workflows.map(async (workflow) => {
      const [runs, state, readiness] = await Promise.all([
        newestRunsOf(engine.store, workflow.id, 1),
        workflow.trigger.schedule !== undefined ? getScheduleState(engine.store, workflow.id) : undefined,
        readinessOf(workflow, names),
      ]);
      const paused = state?.paused === true;
      const schedule = workflow.trigger.schedule;
      const next = schedule && !paused ? (nextFirings(schedule, profile.time_zone, now, 1)[0] ?? null) : null;
      const last = runs[0] ?? null;
      const twin = workflows.find((w) => w.id !== workflow.id && w.name.trim() === workflow.name.trim());
      return {
        workflow,
        trigger: triggerInWords(workflow, profile.time_zone),
        paused,
        next,
        last,
        lastResult: last ? resultOf(last) : null,
        readiness,
        sameNameAs: twin?.id ?? null,
      };
    }),
  );
}

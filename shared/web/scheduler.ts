/**
 * The in-process scheduler of the local server: one croner job per workflow with a
 * `schedule` trigger, plus the periodic sweep (crash recovery, decision expiry).
 */
import { Cron } from 'croner';
import { retryLearning } from '../runs/learning.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { logLine } from '../logging/log.ts';
import { expireDue, housekeeping, recoverCrashedRuns } from '../runs/housekeeping.ts';
import { runsWithStatus } from '../runs/run-repository.ts';
import { createRunFor } from '../runs/start-run.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { toCronExpression } from '../workflows/schema.ts';
import { oneLine, type RunLauncher } from './run-launcher.ts';
import { errorMessage } from '../errors/index.ts';
import { readProfile } from '../profile/profile.ts';
import { isPaused } from '../schedules/schedules.ts';

/** How often workflows are re-read and housekeeping runs. */
export const SCHEDULER_PERIOD_MS = 60_000;

/** Options of {@link startScheduler}; all optional, the defaults are for production. */
export interface SchedulerOptions {
  /** The clock decision expiry is judged by (default: real time, via `housekeeping`). */
  now?: () => Date;
  /** Turns a workflow's schedule into a croner pattern (default `toCronExpression`); tests pass a per-second one. */
  cronOf?: (schedule: string) => string | null;
  /** Period of refresh + housekeeping (default 60 s). */
  periodMs?: number;
  /** Where one-line problems go (default stderr). */
  log?: (line: string) => void;
}

/** A running scheduler. */
export interface Scheduler {
  /** Stops every job and timer; nothing fires afterwards. */
  stop(): void;
  /** Re-reads the workflows: new schedules start, changed ones restart, removed ones stop. */
  refresh(): Promise<void>;
  /** Runs housekeeping once now (crash recovery, expiry; expired decisions may resume runs). */
  sweep(): Promise<void>;
  /** Resolves when no refresh or sweep is in progress. */
  idle(): Promise<void>;
  /** When the workflow's job fires next (null: it has no job), and the time zone it runs in. */
  next(workflowId: string): { at: Date | null; timeZone: string } | null;
}

interface Job {
  schedule: string;
  timeZone: string;
  cron: Cron;
}

/**
 * Starts the scheduler: a refresh and a sweep now, then every `periodMs`. On a fire,
 * a run is created with trigger `{kind: 'schedule', detail: <schedule>}` and handed to
 * `launcher`; a fire is skipped while a run of the same workflow is still running, and
 * while its schedule is paused (`handoff schedules pause`). Schedules are EventBridge
 * expressions, read in the profile's time zone (default UTC);
 * a changed time zone restarts the jobs at the next refresh.
 */
export function startScheduler(
  engine: EngineDeps,
  launcher: RunLauncher,
  opts: SchedulerOptions = {},
): Scheduler {
  const log = opts.log ?? logLine;
  const cronOf = opts.cronOf ?? toCronExpression;
  const jobs = new Map<string, Job>();
  const busy = new Set<Promise<void>>();
  let stopped = false;
  let queue: Promise<void> = Promise.resolve(); // refreshes run one after another

  const track = (work: Promise<void>): Promise<void> => {
    const tracked: Promise<void> = work.finally(() => busy.delete(tracked));
    busy.add(tracked);
    return tracked;
  };

  const fire = async (workflowId: string, schedule: string): Promise<void> => {
    if (stopped) return;
    try {
      if (await isPaused(engine.store, workflowId)) return; // paused: this firing is let go
      const running = (await runsWithStatus(engine.store, 'running')).some(
        (r) => r.workflow_id === workflowId,
      );
      if (running) return log(`handoff: ${workflowId}: schedule fired while a run is still running; skipped`);
      launcher.launch(await createRunFor(engine, workflowId, { kind: 'schedule', detail: schedule }), engine);
    } catch (error) {
      log(`handoff: ${workflowId}: scheduled run could not start: ${message(error)}`);
    }
  };

  const reconcile = async (): Promise<void> => {
    const workflows = await listWorkflows(engine.store);
    const timeZone = (await readProfile(engine.store)).time_zone;
    if (stopped) return;
    const wanted = new Map<string, string>();
    for (const w of workflows) if (w.trigger.schedule !== undefined) wanted.set(w.id, w.trigger.schedule);
    for (const [id, job] of jobs) {
      if (wanted.get(id) === job.schedule && job.timeZone === timeZone) continue;
      job.cron.stop();
      jobs.delete(id);
    }
    for (const [id, schedule] of wanted) {
      if (jobs.has(id)) continue;
      const pattern = cronOf(schedule);
      if (pattern === null) {
        log(`handoff: ${id}: schedule "${schedule}" cannot be run by the local scheduler; not scheduled`);
        continue;
      }
      const cron = new Cron(pattern, { timezone: timeZone, protect: true, unref: true }, () =>
        track(fire(id, schedule)),
      );
      jobs.set(id, { schedule, timeZone, cron });
    }
  };

  const refresh = (): Promise<void> => {
    const next = queue.then(reconcile);
    queue = next.catch(() => undefined);
    return track(next);
  };

  const sweep = (): Promise<void> => {
    const now = opts.now;
    // With an injected clock, the two steps of housekeeping are run with it.
    const work = now ? recoverCrashedRuns(engine).then(() => expireDue(engine, now())) : housekeeping(engine);
    // Answers the learner failed on are tried again (their records say why until then).
    return track(work.then(() => retryLearning(engine, now?.())).then(() => undefined));
  };

  const tick = (): void => {
    if (stopped || busy.size > 0) return; // the previous tick is still working
    refresh()
      .catch((error: unknown) => log(`handoff: could not read workflows: ${message(error)}`))
      .then(() => (stopped ? undefined : sweep()))
      .catch((error: unknown) => log(`handoff: housekeeping failed: ${message(error)}`));
  };

  const timer = setInterval(tick, opts.periodMs ?? SCHEDULER_PERIOD_MS);
  timer.unref();
  tick();

  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const job of jobs.values()) job.cron.stop();
      jobs.clear();
    },
    refresh,
    sweep,
    async idle() {
      while (busy.size > 0) await Promise.allSettled([...busy]);
    },
    next(workflowId) {
      const job = jobs.get(workflowId);
      return job ? { at: job.cron.nextRun(), timeZone: job.timeZone } : null;
    },
  };
}

function message(error: unknown): string {
  return oneLine(errorMessage(error));
}

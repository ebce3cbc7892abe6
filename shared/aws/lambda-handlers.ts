/**
 * What the engine's functions do with their event: parse it (zod), call the engine, say
 * what happened. The files in lambdas/ only wire these to their clients.
 */
import { keysMigrated, migrateKeys } from '../runs/key-migration.ts';
import type { Platform } from '../workspaces/platform.ts';
import type { EngineOf } from './lambda-engine.ts';
import { log } from '../logging/log.ts';
import type { Step } from '../runs/dispatch.ts';
import { runStep } from '../runs/run-loop.ts';
import { stepEngine, triggerEngine } from '../runs/step-reads.ts';
import { summarise, type RunSummary } from '../runs/views.ts';
import { scheduledRunId } from '../runs/run-repository.ts';
import { isPaused } from '../schedules/schedules.ts';
import { startRun, startRunOnce } from '../runs/start-run.ts';
import { sweep, type SweepResult } from '../runs/sweep.ts';
import type { Store } from '../store/store.ts';
import type { SchedulesReconciled } from './schedule-reconcile.ts';
import { carryOutSentAnswer, type CarryResult } from '../runs/carry-answer.ts';
import { parseEvent, ResumeEventSchema, ScheduleInputSchema, StepEventSchema } from './lambda-events.ts';

/** A run the firing started (or found started by the same firing before). */
export type TriggerStarted = RunSummary & { duplicate: boolean };
export type TriggerResult = TriggerStarted | { ignored: true; reason: string };

/** The run a firing started; throws with the reason when it started none (for callers that expect one). */
export function startedRun(result: TriggerResult): TriggerStarted {
  if ('ignored' in result) throw new Error(result.reason);
  return result;
}

/**
 * The trigger function: a schedule fired; the run starts here and its first step is
 * dispatched. Keyed on (workflow, scheduled time): a second delivery of the same firing
 * starts no second run.
 */
export async function triggerScheduledRun(engineOf: EngineOf, event: unknown): Promise<TriggerResult> {
  const input = parseEvent(ScheduleInputSchema, event, 'a schedule input {workflow_id, schedule}');
  const engine = await triggerEngine(engineOf(input.workspace), input.workflow_id);
  // Paused in the store while its EventBridge schedule still fires (not yet in step, or paused
  // where no event follows, as a credential deleted from the CLI): paused wins, nothing starts.
  if (await isPaused(engine.store, input.workflow_id)) {
    const reason = `workflow ${input.workflow_id} is paused: its schedule fired, no run started`;
    log.warn(reason, { workflow_id: input.workflow_id });
    return { ignored: true, reason };
  }
  const trigger = { kind: 'schedule' as const, detail: input.schedule };
  const { run, duplicate } = input.scheduled_time
    ? await startRunOnce(
        engine,
        input.workflow_id,
        trigger,
        scheduledRunId(engine.workspace, input.workflow_id, input.scheduled_time),
      )
    : { run: await startRun(engine, input.workflow_id, trigger), duplicate: false };
  const ids = { run_id: run.id, workflow_id: run.workflow_id };
  if (duplicate) log.warn(`run ${run.id} was already started by this firing; not started again`, ids);
  else log.info(`run ${run.id} started by its schedule: ${run.status}`, ids);
  return { ...summarise(run), duplicate };
}

export type StepResult = RunSummary | { ignored: true; reason: string };

/**
 * A node's function: runs the step a `handoff.step` event names. A step meant for
 * another node is logged and ignored (a routing mistake must not fail the run); a
 * duplicate or late delivery finds the run moved on and changes nothing.
 */
export function stepHandler(engineOf: EngineOf, own: Step): (event: unknown) => Promise<StepResult> {
  return async (event) => {
    const { detail } = parseEvent(StepEventSchema, event, 'a handoff.step event');
    if (detail.node !== own) {
      const reason = `the ${own} function got the ${detail.node} step of run ${detail.run_id}; check the EventBridge rules`;
      log.warn(reason, { run_id: detail.run_id });
      return { ignored: true, reason };
    }
    const engine = await stepEngine(engineOf(detail.workspace), detail.run_id);
    const run = await runStep(engine, detail.run_id, own);
    log.info(`${own} step of run ${run.id}: ${run.status}`, { run_id: run.id, workflow_id: run.workflow_id });
    return summarise(run);
  };
}

export type ResumeResult = StepResult | CarryResult;

/**
 * The resume function: a run's resume step (`handoff.step`), or an answered item to carry
 * out while its run still waits (`handoff.carry`, the same claim as every action: once).
 */
export function resumeHandler(engineOf: EngineOf): (event: unknown) => Promise<ResumeResult> {
  const step = stepHandler(engineOf, 'resume');
  return async (event) => {
    const parsed = parseEvent(ResumeEventSchema, event, 'a handoff.step or handoff.carry event');
    if (parsed['detail-type'] !== 'handoff.carry') return step(event);
    const { decision_id, workspace } = parsed.detail;
    const result = await carryOutSentAnswer(engineOf(workspace), decision_id);
    if ('run_id' in result)
      log.info(`decision ${decision_id} carried out: ${result.outcome}`, { run_id: result.run_id });
    else log.info(`decision ${decision_id} not carried out here: ${result.reason}`);
    return result;
  };
}

/** Keeps a workspace's schedules in step with its store (the sweeper's: schedule-reconcile.ts). */
export type ReconcileSchedules = (store: Store, workspace: string) => Promise<SchedulesReconciled>;

/** What a sweep did: its runs, and the schedules it synced. */
export interface SweeperResult extends SweepResult {
  schedules: SchedulesReconciled;
}

/**
 * The sweeper function, every few minutes: expires overdue decisions (their runs resume),
 * re-sends, or fails with the reason, dispatches that were lost between functions, and
 * syncs each schedule the store changed without announcing it (`reconcile`).
 */
export async function sweepRuns(platform: Platform, reconcile?: ReconcileSchedules): Promise<SweeperResult> {
  const result: SweeperResult = { expired: 0, resent: [], failed: [], schedules: { synced: [], failed: [] } };
  for (const workspace of await platform.registry.list()) {
    const engine = platform.engineFor(workspace.id);
    const swept = await sweep(engine);
    // The keys step of `handoff store migrate`, until it has run: resumable, so a sweep cut short by its timeout is finished by the next.
    if (!(await keysMigrated(engine.store))) await migrateKeys(engine.store);
    result.expired += swept.expired;
    result.resent.push(...swept.resent);
    result.failed.push(...swept.failed);
    if (!reconcile) continue;
    const schedules = await reconcile(engine.store, workspace.id);
    result.schedules.synced.push(...schedules.synced);
    result.schedules.failed.push(...schedules.failed);
  }
  if (result.resent.length || result.failed.length)
    log.warn(
      `sweep re-sent ${result.resent.join(', ') || 'none'}; failed ${result.failed.join(', ') || 'none'}`,
    );
  return result;
}

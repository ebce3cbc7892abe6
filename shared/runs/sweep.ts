import type { ItemOutcome } from '../records/outcomes.ts';
import { getRecord } from '../store/records.ts';
import type { EngineDeps } from './deps.ts';
import { failRun, resendStep } from './lifecycle.ts';
import {
  ANSWER_CARRY_LEASE_MS,
  MAX_SENDS,
  olderThan,
  STEP_LEASE_MS,
  UNTAKEN_AFTER_MS,
} from './dispatch-timing.ts';
import { expireDue } from './housekeeping.ts';
import { retryLearning } from './learning.ts';
import { actingClaimsByRun, settleInterrupted } from '../actions/interrupted-claims.ts';
import { RunSchema, type Run } from '../records/runs.ts';
import { runsWithStatus } from './run-repository.ts';

export interface SweepResult {
  /** Decisions past their deadline, now expired (their runs resumed). */
  expired: number;
  /** Runs whose lost dispatch was sent again. */
  resent: string[];
  /** Runs marked failed because their dispatch was lost MAX_SENDS times. */
  failed: string[];
}

/**
 * What the sweeper does on a schedule (on AWS, every few minutes): expires overdue
 * decisions, and finds runs stranded between two processes — a dispatch nobody took, or
 * a step whose process died — and sends the step again, or marks the run failed with
 * the reason once it was sent MAX_SENDS times. A run is never left `running` for good.
 * Claims a dead step left `acting` get their audit entry's outcome (or `failed`, to be
 * checked by hand), so no acted item is without its entry; a live step's are left alone.
 */
export async function sweep(deps: EngineDeps, now = new Date()): Promise<SweepResult> {
  const expired = await expireDue(deps, now);
  // Listed before the runs are read: a claim made after its run was read is never touched.
  const acting = await actingClaimsByRun(deps.store);
  const result: SweepResult = { expired, resent: [], failed: [] };
  for (const run of await runsWithStatus(deps.store, 'running')) {
    const outcome = await sweepRun(deps, run, now, acting);
    if (outcome) result[outcome].push(run.id);
  }
  await settleClaimsOfStoppedRuns(deps, acting, now);
  // Answers the learner failed on are sent again (their records say why until then).
  await retryLearning(deps, now);
  return result;
}

async function sweepRun(
  deps: EngineDeps,
  run: Run,
  now: Date,
  acting: Map<string, ItemOutcome[]>,
): Promise<'resent' | 'failed' | null> {
  const dispatch = run.dispatch;
  if (run.status !== 'running' || !dispatch || !deps.dispatcher) return null;
  const stale = dispatch.taken_at
    ? olderThan(dispatch.taken_at, STEP_LEASE_MS, now)
    : olderThan(dispatch.sent_at ?? run.started_at, UNTAKEN_AFTER_MS, now);
  if (!stale) return null;
  // No step is working on the run (its lease ran out, or nobody took it): its claims are orphans.
  for (const claim of acting.get(run.id) ?? []) await settleInterrupted(deps.store, run, claim);
  acting.delete(run.id);
  const what = dispatch.taken_at
    ? `its ${dispatch.node} step stopped without finishing`
    : `its dispatch to the ${dispatch.node} step was never taken`;
  if (dispatch.sends >= MAX_SENDS) {
    const reason = `${what} (sent ${dispatch.sends} times)`;
    const failed = await failRun(deps, run.id, reason, { step: dispatch.node });
    return failed.marked ? 'failed' : null;
  }
  // False: the run moved meanwhile, it was not stranded.
  return (await resendStep(deps, run, now, what)) ? 'resent' : null;
}

/**
 * Settles the claims still `acting` whose run is no longer running (completed, failed,
 * skipped or waiting): no step works on such a run, so the process that claimed them died.
 */
async function settleClaimsOfStoppedRuns(
  deps: EngineDeps,
  acting: Map<string, ItemOutcome[]>,
  now: Date,
): Promise<void> {
  for (const [runId, claims] of acting) {
    const run = await getRecord(deps.store, 'runs', RunSchema, runId);
    if (run?.status === 'running') continue; // a live step may be acting on them
    // A waiting run's answers are carried out as they arrive: a claim that young may be live.
    const stale =
      run?.status === 'waiting' ? claims.filter((c) => olderThan(c.at, ANSWER_CARRY_LEASE_MS, now)) : claims;
    for (const claim of stale)
      await settleInterrupted(deps.store, { id: runId, workflow_id: claim.workflow_id }, claim);
  }
}

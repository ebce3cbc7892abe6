import { isAlive } from '../config/processes.ts';
import { auditOfRun } from '../audit/audit.ts';
import { listPending, pendingOfRun } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { expireDecision, failRun } from './lifecycle.ts';
import { actingClaimsByRun, settleInterrupted } from '../actions/interrupted-claims.ts';
import { resumeIfReady } from './run-loop.ts';
import { sendDueNotices } from './quiet-notices.ts';
import { UnreadableSnapshotError } from './graph-state.ts';
import { log } from '../logging/log.ts';
import { runsWithStatus, thisProcess } from './run-repository.ts';
import { plural } from '../text/plural.ts';

/**
 * Marks decisions past their deadline as expired (their items are skipped, never
 * acted) and resumes every run that no longer waits on anyone: those, and any run whose
 * last answer was saved by a process killed before it resumed the run. First, the notices
 * held for quiet hours whose time has come are sent (see quiet-notices.ts).
 */
export async function expireDue(deps: EngineDeps, now = new Date()): Promise<number> {
  await sendDueNotices(deps, now);
  const pending = await listPending(deps.store);
  const due = pending.filter((d) => d.expires_at <= now.toISOString());
  const asking = new Set(pending.filter((d) => !due.includes(d)).map((d) => d.run_id));
  const runs = new Set<string>();
  for (const run of await runsWithStatus(deps.store, 'waiting')) if (!asking.has(run.id)) runs.add(run.id);
  for (const decision of due) {
    // Answered meanwhile: fine, the answer stands.
    if (await expireDecision(deps.store, decision, { by: 'expired', at: now.toISOString() }))
      runs.add(decision.run_id);
  }
  for (const runId of runs) {
    try {
      await resumeIfReady(deps, runId);
    } catch (error) {
      // One run this build cannot read stays waiting, untouched; the others still go on.
      if (!(error instanceof UnreadableSnapshotError)) throw error;
      log.warn(error.message);
    }
  }
  return due.length;
}

/**
 * Finds runs whose process died mid-run (on this host) and marks them failed, telling
 * the person once (of two commands recovering at once, only the one whose write won
 * does). Items the dead process was in the middle of acting on are recorded as failed,
 * for a person to check; items it had only set aside were never touched: their holds
 * are released and the next run asks again.
 */
export async function recoverCrashedRuns(deps: EngineDeps): Promise<string[]> {
  const me = thisProcess();
  const crashed = (await runsWithStatus(deps.store, 'running')).filter(
    (r) => r.owner !== null && r.owner.host === me.host && r.owner.pid !== me.pid && !isAlive(r.owner.pid),
  );
  if (crashed.length === 0) return [];
  // What is still moving, by the status index; each run's own records by its key: never the history.
  const acting = await actingClaimsByRun(deps.store);
  const recovered: string[] = [];
  for (const run of crashed) {
    for (const outcome of acting.get(run.id) ?? []) await settleInterrupted(deps.store, run, outcome);
    for (const decision of await pendingOfRun(deps.store, run.id))
      await deps.store.delete('decisions', decision.id); // never asked: the next run asks again
    const acted = (await auditOfRun(deps.store, run)).filter((e) => e.outcome === 'acted').length;
    const reason = `the process running it stopped before it finished; ${plural(acted, 'item')} had been acted on, the rest are picked up by the next run`;
    if ((await failRun(deps, run.id, reason)).marked) recovered.push(run.id);
  }
  return recovered;
}

/** The sweep every entry point runs first: recover crashed runs, expire overdue decisions. */
export async function housekeeping(deps: EngineDeps): Promise<void> {
  await recoverCrashedRuns(deps);
  await expireDue(deps);
}

/**
 * Quiet hours: a question raised while the profile is quiet is not notified then; its
 * interrupt carries `notice_due_at` (the end of the quiet hours) and the notice goes out
 * from housekeeping once that time has come — locally the server's scheduler sweep
 * (every minute) or the next CLI command, on AWS the sweeper function. The questions stay
 * pending all the while: quiet hours never answer anything.
 */
import { errorMessage, VersionConflictError } from '../errors/index.ts';
import { log } from '../logging/log.ts';
import { InterruptSchema, type InterruptRecord } from '../records/runs.ts';
import { getRecord } from '../store/records.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { decisionsOf } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { expireUnasked } from './lifecycle.ts';
import { runsWithStatus } from './run-repository.ts';
import { plural } from '../text/plural.ts';

/**
 * Sends each notice held for quiet hours whose time has come (waiting runs only, read
 * through the status index). Taking a notice is a conditional write, so of two sweepers
 * one sends it. A notice that cannot be delivered is handled as at pause time: its
 * questions are skipped (never decided) and the run goes on. Returns the runs notified.
 */
export async function sendDueNotices(deps: EngineDeps, now = new Date()): Promise<string[]> {
  const sent: string[] = [];
  for (const run of await runsWithStatus(deps.store, 'waiting')) {
    if (!run.interrupt_id) continue;
    const interrupt = await getRecord(deps.store, 'interrupts', InterruptSchema, run.interrupt_id);
    const due = interrupt?.notice_due_at;
    if (!interrupt || interrupt.status !== 'open' || !due || due > now.toISOString()) continue;
    if (!(await take(deps, interrupt))) continue;
    const pending = (await decisionsOf(deps.store, interrupt)).filter((d) => d.status === 'pending');
    if (pending.length === 0) continue; // answered meanwhile (from the list, or a link)
    const workflow = await getWorkflow(deps.store, run.workflow_id).catch(() => null);
    try {
      await deps.notifier.notify({
        kind: 'asked',
        runId: run.id,
        workflowName: workflow?.name ?? run.workflow_id,
        count: pending.length,
        link: await deps.links.urlFor(pending[0]!.id, new Date(pending[0]!.expires_at)),
      });
      deps.emit(run.id, 'asked', `Quiet hours over: told you about ${plural(pending.length, 'question')}`, {
        interrupt_id: interrupt.id,
        count: pending.length,
      });
      sent.push(run.id);
    } catch (error) {
      const reason = `the person could not be reached after quiet hours (${errorMessage(error)}); the items were skipped, nothing was done to them`;
      log.warn(`run ${run.id}: ${reason}`);
      deps.emit(run.id, 'failed', reason, {});
      await expireUnasked(deps, run.id, reason); // housekeeping then resumes the run
    }
  }
  return sent;
}

/** Clears the due time with a conditional write: false when another sweeper took it. */
async function take(deps: EngineDeps, interrupt: InterruptRecord): Promise<boolean> {
  try {
    await deps.store.update('interrupts', { ...interrupt, notice_due_at: null }, interrupt.version);
    return true;
  } catch (error) {
    if (error instanceof VersionConflictError) return false;
    throw error;
  }
}

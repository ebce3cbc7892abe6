/**
 * The sweeper keeps every workflow's EventBridge schedule in step with the store, whoever
 * changed it: a change that announced nothing (the CLI against the deployed table pausing,
 * resuming or adding a workflow, or changing the time zone) reaches Scheduler at the next
 * sweep. Only the schedules whose request differs from the one last synced are sent, so a
 * quiet sweep makes no Scheduler call.
 */
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { readProfile } from '../profile/profile.ts';
import { ScheduleStateSchema } from '../schedules/schedules.ts';
import { syncedSchedules } from '../schedules/synced.ts';
import { listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { isError } from '../errors/index.ts';
import { log } from '../logging/log.ts';
import {
  scheduleFingerprint,
  scheduleRequest,
  syncAndNote,
  type ScheduleSettings,
  type ScheduleSyncOptions,
  type ScheduleSyncResult,
} from './schedule-sync.ts';

/** What one sweep did to the workspace's schedules: each one sent, and each that failed (tried again next sweep). */
export interface SchedulesReconciled {
  synced: { workflow_id: string; schedule: ScheduleSyncResult }[];
  failed: { workflow_id: string; reason: string }[];
}

/**
 * Syncs each schedule of the workspace whose request (the workflow's expression, its pause,
 * the profile's time zone) differs from the one last synced, and deletes the schedule of each
 * workflow synced before that is gone. Reads the workspace's workflows, pauses, synced
 * fingerprints and profile: four reads, whatever it sends.
 */
export async function reconcileSchedules(
  store: Store,
  scheduler: SchedulerClient,
  opts: ScheduleSyncOptions,
  workspace: string,
): Promise<SchedulesReconciled> {
  const [workflows, states, synced, profile] = await Promise.all([
    listWorkflows(store),
    listRecords(store, 'schedules', ScheduleStateSchema),
    syncedSchedules(store),
    readProfile(store),
  ]);
  const paused = new Set(states.filter((s) => s.paused).map((s) => s.workflow_id));
  const wanted = new Map<string, Workflow | null>(workflows.map((w) => [w.id, w]));
  for (const id of synced.keys()) if (!wanted.has(id)) wanted.set(id, null); // removed since
  const result: SchedulesReconciled = { synced: [], failed: [] };
  for (const [id, workflow] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
    const settings: ScheduleSettings = { paused: paused.has(id), timeZone: profile.time_zone };
    const fingerprint = scheduleFingerprint(scheduleRequest(opts, workflow, id, settings, workspace));
    const noted = synced.get(id);
    if (fingerprint === (noted?.fingerprint ?? null)) continue;
    try {
      const made = noted !== undefined;
      const schedule = await syncAndNote(scheduler, opts, store, workflow, id, settings, workspace, made);
      result.synced.push({ workflow_id: id, schedule });
    } catch (error) {
      const reason = isError(error) ? `${error.name}: ${error.message}` : String(error);
      log.warn(`schedule not synced (workspace ${workspace}), tried again at the next sweep: ${reason}`, {
        workflow_id: id,
      });
      result.failed.push({ workflow_id: id, reason });
    }
  }
  return result;
}

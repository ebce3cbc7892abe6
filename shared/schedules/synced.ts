/**
 * What a workflow's schedule elsewhere (on AWS: its EventBridge Scheduler schedule) was last
 * made to be, as a fingerprint of the request that made it. The sweeper compares it with what
 * the store says now and syncs only the schedules that differ, so a change that announced
 * nothing (the CLI against the deployed table) still reaches the schedule, and a quiet sweep
 * makes no call.
 */
import { z } from 'zod';
import { listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';

export const ScheduleSyncedSchema = z.object({
  id: z.string(),
  schemaVersion: z.literal(1),
  workflow_id: z.string(),
  /** The fingerprint of the schedule as last made (see scheduleFingerprint). */
  fingerprint: z.string(),
  synced_at: z.string(),
});
export type ScheduleSynced = z.infer<typeof ScheduleSyncedSchema>;

/** Every workflow's last synced schedule in the store's workspace, by workflow id. */
export async function syncedSchedules(store: Store): Promise<Map<string, ScheduleSynced>> {
  const records = await listRecords(store, 'schedule_syncs', ScheduleSyncedSchema);
  return new Map(records.map((r) => [r.workflow_id, r]));
}

/** Notes that the workflow's schedule now matches `fingerprint`; `null`: it has none now. */
export async function noteSynced(
  store: Store,
  workflowId: string,
  fingerprint: string | null,
  now = new Date(),
): Promise<void> {
  if (fingerprint === null) return store.delete('schedule_syncs', workflowId);
  await store.put(
    'schedule_syncs',
    ScheduleSyncedSchema.parse({
      id: workflowId,
      schemaVersion: 1,
      workflow_id: workflowId,
      fingerprint,
      synced_at: now.toISOString(),
    }),
  );
}

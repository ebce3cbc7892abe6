/**
 * The last mailbox state a completed run saw, per workflow: the trigger compares it with
 * one STATUS to know, without reading a message or calling a model, that nothing is new.
 * A run notes what it listed (`listed`, by run id) when it lists; the note becomes the
 * watermark when that run completes, maybe in another process after a pause.
 */
import { z } from 'zod';
import type { Collection, Store } from '../../store/store.ts';

const WATERMARKS: Collection = 'source_watermarks';

const StatusSchema = z.object({ uid_validity: z.string(), uid_next: z.number().int() });

const WatermarkSchema = z.object({
  id: z.string(),
  schemaVersion: z.literal(1),
  seen: StatusSchema.nullable(),
  listed: StatusSchema.extend({ run_id: z.string() }).nullable(),
  updated_at: z.string(),
});
type Watermark = z.infer<typeof WatermarkSchema>;

/** A mailbox's UIDVALIDITY and UIDNEXT. */
export interface MailboxStatus {
  uidValidity: string;
  uidNext: number;
}

async function read(store: Store, workflowId: string): Promise<Watermark | null> {
  const parsed = WatermarkSchema.safeParse(await store.get(WATERMARKS, workflowId));
  return parsed.success ? parsed.data : null;
}

async function write(store: Store, record: Omit<Watermark, 'updated_at' | 'schemaVersion'>): Promise<void> {
  await store.put(WATERMARKS, { ...record, schemaVersion: 1, updated_at: new Date().toISOString() });
}

/** The mailbox state the last completed run saw, or null (never completed, or unreadable). */
export async function readWatermark(store: Store, workflowId: string): Promise<MailboxStatus | null> {
  const seen = (await read(store, workflowId))?.seen;
  return seen ? { uidValidity: seen.uid_validity, uidNext: seen.uid_next } : null;
}

/** Notes the state a run listed; it becomes the watermark if that run completes. */
export async function noteListed(
  store: Store,
  workflowId: string,
  runId: string,
  status: MailboxStatus,
): Promise<void> {
  const seen = (await read(store, workflowId))?.seen ?? null;
  await write(store, {
    id: workflowId,
    seen,
    listed: { run_id: runId, uid_validity: status.uidValidity, uid_next: status.uidNext },
  });
}

/** The run completed: what it listed is now what the next trigger compares with. */
export async function promoteListed(store: Store, workflowId: string, runId: string): Promise<void> {
  const record = await read(store, workflowId);
  if (record?.listed?.run_id !== runId) return;
  const { run_id: _, ...seen } = record.listed;
  await write(store, { id: workflowId, seen, listed: null });
}

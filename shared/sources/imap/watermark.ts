/**
 * The last mailbox state a completed run saw, per workflow: the trigger compares it with
 * one STATUS to know, without reading a message or calling a model, that nothing is new.
 */
import { z } from 'zod';
import type { Collection, Store } from '../../store/store.ts';

// Not yet in COLLECTIONS; the cast goes when store.ts lists it.
const WATERMARKS = 'source_watermarks' as Collection;

const WatermarkSchema = z.object({
  id: z.string(),
  schemaVersion: z.literal(1),
  uid_validity: z.string(),
  uid_next: z.number().int(),
  updated_at: z.string(),
});

/** A mailbox's UIDVALIDITY and UIDNEXT. */
export interface MailboxStatus {
  uidValidity: string;
  uidNext: number;
}

/** The stored watermark of a workflow's mailbox, or null (never completed, or unreadable). */
export async function readWatermark(store: Store, workflowId: string): Promise<MailboxStatus | null> {
  const parsed = WatermarkSchema.safeParse(await store.get(WATERMARKS, workflowId));
  return parsed.success ? { uidValidity: parsed.data.uid_validity, uidNext: parsed.data.uid_next } : null;
}

/** Stores the watermark a completed run saw. */
export async function writeWatermark(store: Store, workflowId: string, status: MailboxStatus): Promise<void> {
  await store.put(WATERMARKS, {
    id: workflowId,
    schemaVersion: 1,
    uid_validity: status.uidValidity,
    uid_next: status.uidNext,
    updated_at: new Date().toISOString(),
  });
}

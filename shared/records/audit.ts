import { z } from 'zod';

export const OutcomeSchema = z.enum([
  'acted',
  'declined',
  'expired',
  'failed',
  'unparseable',
  'duplicate',
  'run_started',
  'run_finished',
  'handed_off',
]);
export type Outcome = z.infer<typeof OutcomeSchema>;

export const DecidedBySchema = z.enum(['model', 'memory', 'human']);
export type DecidedBy = z.infer<typeof DecidedBySchema>;

export const AuditEntrySchema = z.object({
  id: z.string(),
  run_id: z.string(),
  workflow_id: z.string(),
  item_id: z.string().nullable(),
  /** The item's subject, for a person reading the log or the run's digest (absent in older entries). */
  subject: z.string().optional(),
  /** The item's sender (a mail's address), for the run page's "What it did" (absent in older entries). */
  sender: z.string().optional(),
  outcome: OutcomeSchema,
  action: z.string().nullable(),
  decided_by: DecidedBySchema.nullable(),
  confidence: z.number().nullable(),
  reasoning: z.string().nullable(),
  note: z.string().nullable(),
  /** Which rule decided, for decided_by: memory. */
  rule_id: z.string().nullable().default(null),
  /** What the action did (e.g. where a message moved), or why it failed. */
  detail: z.string().nullable().default(null),
  /** The specialist that handled the item; absent when the executor did. */
  agent: z.string().optional(),
  /** For `handed_off`: the agent that handed the item over and the one that took it. */
  handoff: z.object({ from: z.string(), to: z.string() }).optional(),
  at: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

import { z } from 'zod';

/**
 * One record per (workflow, item) that got an outcome. It is claimed before the action
 * runs, so an item is never acted on twice, even across a crash or two concurrent runs.
 * Before that, a run that sets an item aside to ask about it holds it (`held`): no other
 * run fetches, asks about or acts on it until the asking run claims it to act on the answer.
 * A run that fails first marks its holds `released`, and any run may take the item again.
 * Every change to the record is conditional on its version: a hold or claim is never lost.
 */
export const ItemOutcomeSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  workflow_id: z.string(),
  item_id: z.string(),
  run_id: z.string(),
  action: z.string().nullable(),
  status: z.enum([
    'held',
    'released',
    'acting',
    'acted',
    'declined',
    'expired',
    'failed',
    'unparseable',
    'duplicate',
  ]),
  /** The fingerprint of the content claimed (absent on records written before fingerprints). */
  fingerprint: z.string().optional(),
  at: z.string(),
});
export type ItemOutcome = z.infer<typeof ItemOutcomeSchema>;

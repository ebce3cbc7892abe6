import { z } from 'zod';

/**
 * An answer the learner could not learn from (yet): kept under the decision's id until a
 * later attempt learns, so the Memory page and `handoff doctor` can say which answers
 * taught nothing and why. Removed when learning succeeds.
 */
export const LearningFailureSchema = z.object({
  id: z.string(),
  version: z.number().int().optional(),
  run_id: z.string(),
  workflow_id: z.string(),
  sender: z.string(),
  subject: z.string(),
  /** One line: why the last attempt failed. */
  error: z.string(),
  attempts: z.number().int().min(1),
  failed_at: z.string(),
});
export type LearningFailure = z.infer<typeof LearningFailureSchema>;

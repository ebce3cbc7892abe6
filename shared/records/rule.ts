import { z } from 'zod';

/** What a rule matches on: an exact sender, a whole domain, or a set of keywords. */
export const RuleMatchSchema = z.union([
  z.object({ sender: z.string().min(3) }).strict(),
  z.object({ domain: z.string().min(1) }).strict(),
  z.object({ keywords: z.array(z.string().min(1)).min(2) }).strict(),
]);
export type RuleMatch = z.infer<typeof RuleMatchSchema>;

export const RuleSchema = z.object({
  id: z.string(),
  version: z.number().int().optional(),
  /** null: the rule applies to every workflow; else the workflow it was learned in or set for. */
  workflow_id: z.string().nullable(),
  /**
   * The source (mailbox) the rule describes (memory/source-key.ts); with scope "source" it
   * applies to every workflow reading that source. null (rules written before): its workflow only.
   */
  source_key: z.string().nullable().default(null),
  /** "workflow": the person kept it to its workflow; "source": every workflow of its source. */
  scope: z.enum(['source', 'workflow']).default('source'),
  match: RuleMatchSchema,
  action: z.string(),
  source: z.enum(['you', 'learned']),
  note: z.string().nullable(),
  confidence: z.number().min(0).max(1).default(1),
  decision_id: z.string().nullable().default(null),
  item_id: z.string().nullable().default(null),
  superseded_by: z.string().nullable().default(null),
  /** How a learned rule reads to the person, e.g. "Anything from vendor.com → archive". */
  pattern: z.string().nullable().default(null),
  /** Ids the memory mirror gave it (AgentCore Memory records). */
  mirror_ids: z.array(z.string()).default([]),
  created_at: z.string(),
  /**
   * When it was deleted (null: it was not). A deleted rule no longer fires nor is listed; it
   * can be restored for a while (memory/rule-undo.ts, UNDO_WINDOW_MS).
   */
  deleted_at: z.string().nullable().default(null),
});
export type Rule = z.infer<typeof RuleSchema>;

/** Whether a rule may fire: neither replaced by a newer one nor deleted. */
export function isLive(rule: Pick<Rule, 'superseded_by' | 'deleted_at'>): boolean {
  return rule.superseded_by === null && rule.deleted_at === null;
}

import { z } from 'zod';

export const EvidenceSchema = z.object({
  decision_id: z.string(),
  item_id: z.string(),
  sender: z.string(),
  subject: z.string(),
  action: z.string(),
  note: z.string().nullable(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const DomainProposalSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  workflow_id: z.string(),
  domain: z.string(),
  action: z.string(),
  /** withdrawn: a later answer for the domain disagreed before anyone accepted it. */
  status: z.enum(['proposed', 'accepted', 'dismissed', 'withdrawn']),
  evidence: z.array(EvidenceSchema),
  /** The rule accepting it made. */
  rule_id: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});
export type DomainProposal = z.infer<typeof DomainProposalSchema>;

import { z } from 'zod';
import { domainOf, normaliseDomain, words } from '../../memory/match.ts';
import { RuleMatchSchema, type RuleMatch } from '../../records/rule.ts';

/** What the learner is shown: one answered decision. */
export interface LearnerCase {
  decision_id: string;
  workflow_id: string;
  sender: string;
  sender_domain: string | null;
  subject: string;
  snippet: string;
  suggested_action: string;
  chosen_action: string;
  irreversible: boolean;
  note: string | null;
}

export const RuleProposalSchema = z.object({
  match: RuleMatchSchema,
  action: z.string(),
  pattern: z.string().min(1),
  confidence: z.number().min(0).max(1),
});
export type RuleProposal = z.infer<typeof RuleProposalSchema>;

/** Mail providers shared by strangers: a domain rule there would cover everyone. */
export const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'fastmail.com',
  'fastmail.example',
  'gmx.com',
  'gmx.net',
  'mail.com',
  'zoho.com',
]);

/** Words too common to tell one message from another. */
export const STOPWORDS = new Set(
  'the and for you your with this that from have are was were will can could would about please thanks thank hello dear regards just what when there their they them our out new all any its into more some than then also only over such here been being has had not but his her him she he who how why which these those may get got one two very much many'.split(
    ' ',
  ),
);

/**
 * Checks a proposed rule against the one decision it must explain. Returns a reason
 * when it is too broad or does not fit; null when it may be saved.
 */
export function checkProposal(proposal: RuleProposal, learnerCase: LearnerCase): string | null {
  if (learnerCase.irreversible) return 'irreversible actions always ask; no rule can take them';
  if (proposal.action !== learnerCase.chosen_action)
    return `the rule must repeat the person's answer (${learnerCase.chosen_action}), not ${proposal.action}`;
  const match: RuleMatch = proposal.match;
  if (!('sender' in match) && !learnerCase.note?.trim())
    return 'without a note, only the exact sender explains the answer; a wider rule needs the person to say so';
  if ('sender' in match) {
    return match.sender.trim().toLowerCase() === learnerCase.sender.toLowerCase()
      ? null
      : `the sender must be exactly ${learnerCase.sender}`;
  }
  if ('domain' in match) {
    const domain = normaliseDomain(match.domain);
    if (domain !== learnerCase.sender_domain)
      return `the domain must be the sender's own (${learnerCase.sender_domain})`;
    if (PUBLIC_MAIL_DOMAINS.has(domain))
      return `${domain} is a public mail provider: a domain rule would cover strangers`;
    return null;
  }
  const seen = words(`${learnerCase.subject}\n${learnerCase.snippet}`);
  const keywords = [...new Set(match.keywords.map((k) => k.trim().toLowerCase()))];
  if (keywords.length < 2) return 'a keyword rule needs at least two distinct keywords';
  const weak = keywords.filter((k) => STOPWORDS.has(k) || k.length < 4);
  if (weak.length > 0) return `not distinctive enough: ${weak.join(', ')}`;
  const absent = keywords.filter((k) => !seen.has(k));
  if (absent.length > 0) return `keywords must appear in this message: ${absent.join(', ')}`;
  return null;
}

/** The learner case for an answered decision. */
export function senderDomain(sender: string): string | null {
  return domainOf(sender);
}

import { isLive, type Rule, type RuleMatch } from '../records/rule.ts';
import { reachOf, ruleApplies } from './source-key.ts';

/** The parts of an item that recall may look at. */
export interface RecallSubject {
  /** The bare sender address from the From header, never the display name. */
  senderAddress: string;
  subject: string;
  text: string;
}

const ADDRESS = /^[^\s@<>"]+@([a-z0-9-]+(\.[a-z0-9-]+)+)$/;

/** Lower-cases and trims a domain, dropping a leading '@'. */
export function normaliseDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '');
}

/** The domain of a bare address, or null when it is not one. */
export function domainOf(address: string): string | null {
  const match = ADDRESS.exec(address.trim().toLowerCase());
  return match?.[1] ?? null;
}

/** Whole-word tokens of a text, lower-cased. */
export function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu) ?? []);
}

/**
 * Conservative recall: an exact sender address, the exact domain (a subdomain is a
 * different domain and does not match), or at least two distinct keywords as whole
 * words in the subject or body. The display name is never consulted.
 */
export function matches(match: RuleMatch, subject: RecallSubject): boolean {
  const address = subject.senderAddress.trim().toLowerCase();
  if ('sender' in match) return ADDRESS.test(address) && address === match.sender.trim().toLowerCase();
  if ('domain' in match) return domainOf(address) === normaliseDomain(match.domain);
  const seen = words(`${subject.subject}\n${subject.text}`);
  const distinct = new Set(match.keywords.map((k) => k.trim().toLowerCase()).filter(Boolean));
  let hits = 0;
  for (const keyword of distinct) {
    const parts = [...words(keyword)];
    if (parts.length > 0 && (parts.length === 1 ? seen.has(parts[0]!) : phraseIn(parts, subject))) hits++;
  }
  return hits >= 2;
}

function phraseIn(parts: string[], subject: RecallSubject): boolean {
  const text = `${subject.subject}\n${subject.text}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return text.some((_, i) => parts.every((p, j) => text[i + j] === p));
}

const SPECIFICITY = { sender: 0, keywords: 1, domain: 2 } as const;

function kind(match: RuleMatch): keyof typeof SPECIFICITY {
  return 'sender' in match ? 'sender' : 'domain' in match ? 'domain' : 'keywords';
}

/** Rules kept to one workflow before those of its source, before those of every workflow. */
const REACH = { workflow: 0, source: 1, every: 2 } as const;

/**
 * The rule that covers an item, if any: live rules for this workflow, for the source it reads
 * (`sourceKey`; null: none known) or for every workflow; rules you set before learned ones,
 * then the most specific match, then the narrowest reach, then the newest.
 */
export function findCoveringRule(
  rules: readonly Rule[],
  workflowId: string,
  subject: RecallSubject,
  sourceKey: string | null = null,
): Rule | undefined {
  return rules
    .filter((r) => isLive(r) && ruleApplies(r, workflowId, sourceKey))
    .filter((r) => matches(r.match, subject))
    .sort(
      (a, b) =>
        (a.source === 'you' ? 0 : 1) - (b.source === 'you' ? 0 : 1) ||
        SPECIFICITY[kind(a.match)] - SPECIFICITY[kind(b.match)] ||
        REACH[reachOf(a).kind] - REACH[reachOf(b).kind] ||
        b.created_at.localeCompare(a.created_at),
    )[0];
}

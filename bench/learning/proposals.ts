/**
 * The learning benchmark's view of domain proposals: the simulated person accepts an open
 * proposal when their hidden policy gives every message of its domain seen so far its action
 * and the domain is not one they share with others (their own, a freemail provider), and
 * dismisses the rest. The engine's state is left alone; the bench counts the questions an
 * accepted proposal would have answered (and any it would have answered wrongly).
 */
import type { AuditEntry } from '../../shared/records/audit.ts';
import type { DomainProposal } from '../../shared/records/proposals.ts';
import { itemKey, SHARED_DOMAINS, type Truth } from './population.ts';

export interface ProposalTally {
  /** Proposals seen open at the start of a day, by domain: accepted or dismissed. */
  decided: Map<string, { action: string; accepted: boolean; day: number }>;
}

export const newProposalTally = (): ProposalTally => ({ decided: new Map() });

/** The person looks at the open proposals before the day's run. */
export function reviewProposals(
  tally: ProposalTally,
  open: readonly DomainProposal[],
  truths: ReadonlyMap<string, Truth>,
  day: number,
): void {
  for (const p of open) {
    if (p.status !== 'proposed' || tally.decided.has(p.domain)) continue;
    const actions = new Set([...truths.values()].filter((t) => t.domain === p.domain).map((t) => t.action));
    const accepted =
      !SHARED_DOMAINS.has(p.domain) && actions.size === 1 && actions.has(p.action as Truth['action']);
    tally.decided.set(p.domain, { action: p.action, accepted, day });
  }
}

/** Of the day's questions, those an accepted proposal would have answered: rightly and wrongly. */
export function savedByProposals(
  tally: ProposalTally,
  audit: readonly AuditEntry[],
  truths: ReadonlyMap<string, Truth>,
): { saved: number; wrong: number } {
  let saved = 0;
  let wrong = 0;
  for (const entry of audit) {
    if (entry.item_id === null || (entry.decided_by !== 'human' && entry.outcome !== 'expired')) continue;
    const truth = truths.get(itemKey(entry.item_id));
    const accepted = truth ? tally.decided.get(truth.domain) : undefined;
    if (!truth || !accepted?.accepted) continue;
    if (accepted.action === truth.action) saved += 1;
    else wrong += 1;
  }
  return { saved, wrong };
}

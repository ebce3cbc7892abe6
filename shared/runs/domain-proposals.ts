/**
 * Domain-rule proposals: when a person has given the same answer for two or more senders
 * of one non-public domain, Memory proposes "anything from that domain → that action",
 * with its evidence. A proposal is never applied: only accepting it makes a rule.
 */
import { InvalidInputError, NotFoundError, VersionConflictError } from '../errors/index.ts';
import type { EngineDeps } from './deps.ts';
import type { Decision } from '../records/runs.ts';
import { newId } from '../store/ids.ts';
import { getRecord, listRecords, parseRecord } from '../store/records.ts';
import { listByIdPrefix, type JsonRecord, type Store } from '../store/store.ts';
import { DomainProposalSchema, type DomainProposal } from '../records/proposals.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import type { Rule } from '../records/rule.ts';
import { addRule } from '../memory/rules-repository.ts';
import { liveRulesOf } from '../memory/rule-sets.ts';
import { domainRulesOf } from '../memory/rule-keys.ts';
import { sourceKeyOf } from '../memory/source-key.ts';
import { newProposalId, proposalPrefix, proposalsUnlessKeyed } from './proposal-keys.ts';

/** Every proposal, oldest first (accepted, dismissed and withdrawn ones included): a read of the whole history. */
export async function listProposals(store: Store): Promise<DomainProposal[]> {
  return oldestFirst(await listRecords(store, 'proposals', DomainProposalSchema));
}

/** The open proposals, oldest first, read through the status index (every proposal until they are keyed). */
export async function openProposals(store: Store): Promise<DomainProposal[]> {
  const all = await proposalsUnlessKeyed(store);
  const open = all
    ? all.filter((p) => p.status === 'proposed')
    : (await store.listWithStatus('proposals', 'proposed'))
        .map((r) => parseRecord(DomainProposalSchema, 'proposals', r))
        .filter((p) => p.status === 'proposed');
  return oldestFirst(open);
}

/** A workflow's proposals about one domain, by the key their ids carry (every proposal until they are keyed). */
async function proposalsAbout(store: Store, workflowId: string, domain: string): Promise<DomainProposal[]> {
  const all =
    (await proposalsUnlessKeyed(store)) ??
    (await listByIdPrefix(store, 'proposals', proposalPrefix(workflowId, domain))).map((r) =>
      parseRecord(DomainProposalSchema, 'proposals', r),
    );
  return oldestFirst(all.filter((p) => p.workflow_id === workflowId && p.domain === domain));
}

const oldestFirst = (proposals: DomainProposal[]) =>
  proposals.sort((a, b) => a.created_at.localeCompare(b.created_at));

/** How a proposal reads to a person. */
export function proposalPattern(p: Pick<DomainProposal, 'domain' | 'action'>): string {
  return `Anything from ${p.domain} → ${p.action}`;
}

/** The distinct senders in a proposal's evidence, sorted. */
export function evidenceSenders(p: Pick<DomainProposal, 'evidence'>): string[] {
  return [...new Set(p.evidence.map((e) => e.sender.toLowerCase()))].sort();
}

const coversDomain = (rule: Rule, domain: string) => 'domain' in rule.match && rule.match.domain === domain;

/**
 * Called when an answer is recorded. Proposes (or refreshes the evidence of) a domain rule
 * when every teaching answer about the sender's domain in this workflow is the same action
 * and comes from at least two distinct senders; withdraws an open proposal that a later
 * answer contradicts. Never for a public mail provider, an irreversible action, or a domain
 * a rule already covers; a dismissed proposal is not made again. Returns the open proposal.
 */
export async function proposeDomainRule(
  deps: EngineDeps,
  decision: Decision,
  read?: Workflow,
  recorded: { written?: readonly JsonRecord[]; regather?: boolean } = {},
): Promise<DomainProposal | null> {
  // Loaded with the first answer, not at a cold start (the API's bundle budget).
  const { proposalDomain, domainEvidence } = await import('./domain-answers.ts');
  if (!proposalDomain(decision)) return null;
  const { store } = deps;
  const workflow = read?.id === decision.workflow_id ? read : await getWorkflow(store, decision.workflow_id);
  const found = await domainEvidence(store, decision, workflow, recorded);
  if (!found) return null;
  const { domain, evidence } = found;
  const actions = new Set(evidence.map((e) => e.action));
  const action = actions.size === 1 ? [...actions][0]! : null;
  const previous = await proposalsAbout(store, workflow.id, domain);
  const open = previous.find((p) => p.status === 'proposed');
  if (action === null) {
    if (open)
      await store.update('proposals', { ...open, status: 'withdrawn', decided_at: now() }, open.version);
    return null;
  }
  const rules =
    (await domainRulesOf(store, workflow.id, domain, sourceKeyOf(workflow))) ??
    (await liveRulesOf(store, workflow.id));
  if (rules.some((r) => coversDomain(r, domain))) return null;
  if (previous.some((p) => p.action === action && p.status !== 'proposed' && p.status !== 'withdrawn'))
    return null;
  if (open && open.action === action) {
    const updated = { ...open, evidence };
    return DomainProposalSchema.parse(await store.update('proposals', updated, open.version));
  }
  const proposal = DomainProposalSchema.parse(
    await store.create('proposals', {
      id: newProposalId(workflow.id, domain),
      workflow_id: workflow.id,
      domain,
      action,
      status: 'proposed',
      evidence,
      rule_id: null,
      created_at: now(),
      decided_at: null,
    }),
  );
  deps.emit(decision.run_id, 'memory', `Proposed: ${proposalPattern(proposal)} (accept it under Memory)`, {
    proposal_id: proposal.id,
  });
  return proposal;
}

async function openProposal(store: Store, id: string): Promise<DomainProposal> {
  const proposal = await getRecord(store, 'proposals', DomainProposalSchema, id);
  if (!proposal) throw new NotFoundError(`no proposal "${id}": see \`handoff rules proposals\``);
  if (proposal.status !== 'proposed')
    throw new InvalidInputError(`proposal ${id} was already ${proposal.status}; nothing changed`);
  return proposal;
}

/** Marks an open proposal decided; a second person deciding it at the same moment loses. */
async function settle(store: Store, proposal: DomainProposal, change: Partial<DomainProposal>) {
  try {
    return DomainProposalSchema.parse(
      await store.update('proposals', { ...proposal, ...change, decided_at: now() }, proposal.version),
    );
  } catch (error) {
    if (error instanceof VersionConflictError)
      throw new InvalidInputError(`proposal ${proposal.id} was decided by someone else just now`);
    throw error;
  }
}

/**
 * Accepts a proposal: it becomes a rule you set for its workflow (source `you`), whose
 * note cites the evidence. Returns the rule.
 */
export async function acceptProposal(store: Store, id: string): Promise<Rule> {
  const proposal = await openProposal(store, id);
  const ruleId = newId('rule');
  await settle(store, proposal, { status: 'accepted', rule_id: ruleId });
  const decisions = proposal.evidence.map((e) => e.decision_id).join(', ');
  return addRule(store, {
    id: ruleId,
    workflowId: proposal.workflow_id,
    match: { domain: proposal.domain },
    action: proposal.action,
    note: `Accepted proposal ${proposal.id}: you chose ${proposal.action} for ${evidenceSenders(proposal).join(', ')} (${decisions})`,
  });
}

/** Dismisses a proposal: no rule, and the same proposal is not made again. */
export async function dismissProposal(store: Store, id: string): Promise<DomainProposal> {
  return settle(store, await openProposal(store, id), { status: 'dismissed' });
}

const now = () => new Date().toISOString();

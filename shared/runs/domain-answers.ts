/**
 * The answers that can teach about one sender domain in one workflow, kept on one record
 * per (workflow, domain) in `domain_answers`, so a domain proposal reads those decisions by
 * id instead of listing every decision of the workspace. The record is written in the
 * answer's own commit; it is a hint (a superset: an entry whose answer lost a race is read
 * back from its decision), and it only grows. Answers given before these records existed
 * are gathered once per workspace (the `backfilled` marker says it was done).
 */
import { z } from 'zod';
import { PUBLIC_MAIL_DOMAINS } from '../agents/learner/proposal.ts';
import { RecordExistsError, VersionConflictError } from '../errors/index.ts';
import { answeredOnce } from '../memory/exception.ts';
import { domainOf } from '../memory/match.ts';
import { DecisionSchema, type Decision } from '../records/runs.ts';
import type { Evidence } from '../records/proposals.ts';
import type { Workflow } from '../workflows/schema.ts';
import { getRecords, parseRecord } from '../store/records.ts';
import { getEach, type JsonRecord, type RecordRef, type Store, type Write } from '../store/store.ts';
import { listDecisions } from './decision-repository.ts';
import { answeredAction } from './learn.ts';

const HintSchema = z.object({ sender: z.string(), action: z.string() });

export const DomainAnswersSchema = z.object({
  id: z.string(),
  version: z.number().int(),
  workflow_id: z.string(),
  domain: z.string(),
  /** By decision id: who was answered and with which action. */
  answers: z.record(z.string(), HintSchema),
});
export type DomainAnswers = z.infer<typeof DomainAnswersSchema>;

/**
 * The answers a domain's record keeps, the most recent: its evidence for a proposal, so an
 * answer reads at most this many decisions, and the record stays far below DynamoDB's item cap.
 */
export const MAX_DOMAIN_ANSWERS = 100;

/** `answers` with only its MAX_DOMAIN_ANSWERS most recent (the last added) kept. */
function capped(answers: DomainAnswers['answers']): DomainAnswers['answers'] {
  const entries = Object.entries(answers);
  return entries.length <= MAX_DOMAIN_ANSWERS
    ? answers
    : Object.fromEntries(entries.slice(-MAX_DOMAIN_ANSWERS));
}

/** The marker record: every answer given before the per-domain records existed was gathered. */
export const BACKFILLED_ID = 'backfilled';
const WRITE_TRIES = 5;

/** The record id of a workflow's answers about one domain. */
export function domainAnswersId(workflowId: string, domain: string): string {
  return `${workflowId}|${domain}`;
}

/** The domain a decision's answer may teach about: null for a public mail provider or no domain. */
export function proposalDomain(decision: Pick<Decision, 'sender'>): string | null {
  const domain = domainOf(decision.sender);
  return domain && !PUBLIC_MAIL_DOMAINS.has(domain) ? domain : null;
}

/** What an answered decision teaches about its domain, or null (no human answer, an exception). */
function hintOf(decision: Decision): z.infer<typeof HintSchema> | null {
  const action = answeredAction(decision);
  if (!action || decision.answer?.by !== 'human' || answeredOnce(decision.answer)) return null;
  return { sender: decision.sender.toLowerCase(), action };
}

/** The records to read with an answer (its domain's record and the marker); none when it teaches no domain. */
export function domainAnswerRefs(decision: Pick<Decision, 'sender' | 'workflow_id'>): RecordRef[] {
  const domain = proposalDomain(decision);
  if (!domain) return [];
  return [
    { collection: 'domain_answers', id: domainAnswersId(decision.workflow_id, domain) },
    { collection: 'domain_answers', id: BACKFILLED_ID },
  ];
}

/** True when the workspace's earlier answers were never gathered: list them for `domainAnswerWrites`. */
export function needsGathering(
  decision: Pick<Decision, 'sender'>,
  read: readonly (JsonRecord | undefined)[],
): boolean {
  return proposalDomain(decision) !== null && read[1] === undefined;
}

/**
 * The writes that add `answered` to its domain's record, to go in the answer's own commit
 * (`read`: what `domainAnswerRefs` read). When the workspace was never gathered, `earlier`
 * (every decision, listed once) fills each domain's record and the marker in the same commit.
 */
export function domainAnswerWrites(
  answered: Decision,
  read: readonly (JsonRecord | undefined)[],
  earlier: readonly Decision[] = [],
): Write[] {
  const domain = proposalDomain(answered);
  if (!domain) return [];
  const [current, marker] = read;
  const groups = marker ? new Map<string, Group>() : groupHints(earlier);
  const own = domainAnswersId(answered.workflow_id, domain);
  const hint = hintOf(answered);
  if (hint) {
    const group = groups.get(own) ?? { workflowId: answered.workflow_id, domain, hints: {} };
    groups.set(own, { ...group, hints: { ...group.hints, [answered.id]: hint } });
  }
  const writes: Write[] = [...groups].map(([id, group]) => {
    const fresh = { id, workflow_id: group.workflowId, domain: group.domain, answers: capped(group.hints) };
    if (id !== own || !current) return { kind: 'create', collection: 'domain_answers', record: fresh };
    const stored = parseRecord(DomainAnswersSchema, 'domain_answers', current);
    const record = { ...stored, answers: capped({ ...stored.answers, ...group.hints }) };
    return { kind: 'update', collection: 'domain_answers', record, expectedVersion: stored.version };
  });
  if (!marker)
    writes.push({
      kind: 'create',
      collection: 'domain_answers',
      record: { id: BACKFILLED_ID, at: new Date().toISOString() },
    });
  return writes;
}

type Group = { workflowId: string; domain: string; hints: DomainAnswers['answers'] };

/** Teaching answers grouped by their (workflow, domain) record id. */
function groupHints(decisions: readonly Decision[]): Map<string, Group> {
  const grouped = new Map<string, Group>();
  // Oldest first, so a record capped to its most recent answers keeps the right ones.
  const inOrder = [...decisions].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
  for (const decision of inOrder) {
    const domain = proposalDomain(decision);
    const hint = hintOf(decision);
    if (!domain || !hint) continue;
    const id = domainAnswersId(decision.workflow_id, domain);
    const group = grouped.get(id) ?? { workflowId: decision.workflow_id, domain, hints: {} };
    group.hints[decision.id] = hint;
    grouped.set(id, group);
  }
  return grouped;
}

/**
 * The domain's record with `answered` in it: as the answer's commit wrote it (in `written`), or
 * added now (conditional, tried again when another answer wrote it first). Gathers the
 * workspace's earlier answers first when that was never done, or when `regather` (a commit
 * that gathered them lost a write to another). Null when it teaches no domain.
 */
export async function recordDomainAnswer(
  store: Store,
  answered: Decision,
  options: { written?: readonly JsonRecord[]; regather?: boolean } = {},
): Promise<DomainAnswers | null> {
  const domain = proposalDomain(answered);
  if (!domain) return null;
  const id = domainAnswersId(answered.workflow_id, domain);
  const written = options.written?.find((r) => r.id === id);
  if (written) return parseRecord(DomainAnswersSchema, 'domain_answers', written);
  const [, marker] = await getEach(store, domainAnswerRefs(answered));
  if (!marker || options.regather) await backfill(store);
  const hint = hintOf(answered);
  return addHints(store, answered.workflow_id, domain, hint ? { [answered.id]: hint } : {});
}

/** Adds hints to one record: create, or a conditional update tried again on a conflict. */
async function addHints(
  store: Store,
  workflowId: string,
  domain: string,
  hints: DomainAnswers['answers'],
): Promise<DomainAnswers> {
  const id = domainAnswersId(workflowId, domain);
  for (let attempt = 1; ; attempt++) {
    const found = await store.get('domain_answers', id);
    try {
      if (!found) {
        const fresh = { id, workflow_id: workflowId, domain, answers: capped(hints) };
        return parseRecord(
          DomainAnswersSchema,
          'domain_answers',
          await store.create('domain_answers', fresh),
        );
      }
      const current = parseRecord(DomainAnswersSchema, 'domain_answers', found);
      const same = (k: string) => JSON.stringify(current.answers[k]) === JSON.stringify(hints[k]);
      if (Object.keys(hints).every(same)) return current;
      const next = { ...current, answers: capped({ ...current.answers, ...hints }) };
      return parseRecord(
        DomainAnswersSchema,
        'domain_answers',
        await store.update('domain_answers', next, current.version),
      );
    } catch (error) {
      const lost = error instanceof RecordExistsError || error instanceof VersionConflictError;
      if (!lost || attempt >= WRITE_TRIES) throw error;
    }
  }
}

/** Once per workspace: every teaching answer already given, into its domain's record. */
export async function backfill(store: Store): Promise<void> {
  for (const { workflowId, domain, hints } of groupHints(await listDecisions(store)).values())
    await addHints(store, workflowId, domain, hints);
  try {
    await store.create('domain_answers', { id: BACKFILLED_ID, at: new Date().toISOString() });
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error; // another answer gathered them too
  }
}

/** The fewest distinct senders of one domain, answered alike, that make a proposal. */
export const MIN_SENDERS = 2;

/** The answers a person gave about mail from `domain` in one workflow that can teach (no exceptions). */
function answersFrom(decisions: Decision[], workflowId: string, domain: string): Evidence[] {
  return decisions.flatMap((d) => {
    const hint = hintOf(d);
    if (!hint || d.workflow_id !== workflowId || domainOf(d.sender) !== domain) return [];
    const { id, item_id, subject } = d;
    return [{ decision_id: id, item_id, subject, ...hint, note: d.answer?.note ?? null }];
  });
}

/**
 * Whether the answers may change a proposal: they disagree (an open one is withdrawn), or
 * they agree on a reversible action from at least MIN_SENDERS senders. Answers that agree
 * but cannot make a proposal leave any open one as it is.
 */
function mayPropose(workflow: Workflow, answers: readonly { sender: string; action: string }[]): boolean {
  const actions = new Set(answers.map((a) => a.action));
  if (actions.size !== 1) return true;
  const action = [...actions][0]!;
  if (workflow.actions.some((a) => a.name === action && a.irreversible)) return false;
  return new Set(answers.map((a) => a.sender)).size >= MIN_SENDERS;
}

/** The decisions of `ids` that exist, oldest first (one batched read). */
async function decisionsNamed(store: Store, ids: readonly string[]): Promise<Decision[]> {
  const found = await getRecords(store, 'decisions', DecisionSchema, ids);
  return found
    .filter((d): d is Decision => d !== undefined)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * The teaching answers about the decision's domain in its workflow, oldest first, when they
 * may change a proposal; null when they cannot (a public mail provider, or answers that agree
 * but come from too few senders or on an irreversible action). The domain's record names them; the decisions themselves
 * are read (by id) only when they could matter.
 */
export async function domainEvidence(
  store: Store,
  decision: Decision,
  workflow: Workflow,
  recorded: { written?: readonly JsonRecord[]; regather?: boolean } = {},
): Promise<{ domain: string; evidence: Evidence[] } | null> {
  const domain = proposalDomain(decision);
  if (!domain) return null;
  const hinted = await recordDomainAnswer(store, decision, recorded);
  const ids = Object.keys(hinted?.answers ?? {});
  if (!mayPropose(workflow, Object.values(hinted?.answers ?? {}))) return null;
  const evidence = answersFrom(await decisionsNamed(store, ids), workflow.id, domain);
  return mayPropose(workflow, evidence) ? { domain, evidence } : null;
}

/**
 * Domain proposals read by key: a proposal's id carries the key of its (workflow, domain)
 * (`prop_<key>_<time>_<random>`), so an answer reads that domain's proposals by id prefix, not
 * every proposal the workspace ever had; the open ones are read through the status index
 * (`proposed`, INDEXED_STATUSES). Proposals an earlier build wrote (`prop_<time>_<random>`)
 * are read the older way until `handoff store migrate` (its proposal-keys step, with its own
 * marker) gives each the keyed id; a workspace with only keyed proposals is marked on its
 * first read.
 */
import { createHash } from 'node:crypto';
import { crashPoint } from '../config/processes.ts';
import { DomainProposalSchema, type DomainProposal } from '../records/proposals.ts';
import { isStepDone, markStepDone, unlessStepDone } from '../settings/settings.ts';
import { newId } from '../store/ids.ts';
import { listRecords } from '../store/records.ts';
import { commitAll, type Store, type Write } from '../store/store.ts';

/** The marker that says every proposal of the workspace has a keyed id (in `settings`). */
export const PROPOSAL_KEYS_MIGRATED_ID = 'migration:proposal-keys';
const BATCH = 100;
const KEYED = /^prop_[0-9a-f]{8}_/;

/** The key of a workflow's proposals about one domain. Eight hex digits: two may share one, so a reader filters. */
function proposalKey(workflowId: string, domain: string): string {
  return createHash('sha256')
    .update(['proposal', workflowId, domain].join('\u0000'))
    .digest('hex')
    .slice(0, 8);
}

/** What every id of a workflow's proposals about `domain` begins with. */
export function proposalPrefix(workflowId: string, domain: string): string {
  return `prop_${proposalKey(workflowId, domain)}_`;
}

/** A new proposal's id, carrying its (workflow, domain) key. */
export function newProposalId(workflowId: string, domain: string): string {
  return newId(proposalPrefix(workflowId, domain).slice(0, -1));
}

/** Whether a proposal's id carries its key (written by this build, or migrated). */
export function isKeyedProposalId(id: string): boolean {
  return KEYED.test(id);
}

/** The keyed id an earlier build's proposal moves to: the same time and random part after the key. */
export function migratedProposalId(p: Pick<DomainProposal, 'id' | 'workflow_id' | 'domain'>): string {
  return `${proposalPrefix(p.workflow_id, p.domain)}${p.id.replace(/^prop_/, '')}`;
}

/**
 * Null when every proposal has a keyed id (the marker says so), else every proposal, as listed:
 * the reader's fallback. When all listed are keyed (a workspace this build wrote), the marker is
 * written, and later reads go by key only.
 */
export function proposalsUnlessKeyed(store: Store): Promise<DomainProposal[] | null> {
  return unlessStepDone(
    store,
    PROPOSAL_KEYS_MIGRATED_ID,
    () => listRecords(store, 'proposals', DomainProposalSchema),
    (all) => all.every((p) => isKeyedProposalId(p.id)),
  );
}

/**
 * The proposal-keys step of `handoff store migrate`: each proposal without a keyed id is put at
 * its keyed id (the same record each time: idempotent), then the old one removed; the marker is
 * written last, so one killed in the middle is simply run again. On JSON files a folder per key
 * holds them (relayout). Returns how many moved (0 when already done).
 */
export async function migrateProposalKeys(
  store: Store,
): Promise<{ already_done: boolean; proposals: number }> {
  if (await isStepDone(store, PROPOSAL_KEYS_MIGRATED_ID)) return { already_done: true, proposals: 0 };
  await store.relayout?.();
  const all = await listRecords(store, 'proposals', DomainProposalSchema);
  const keyed = new Map(all.filter((p) => isKeyedProposalId(p.id)).map((p) => [p.id, p.version]));
  const old = all.filter((p) => !isKeyedProposalId(p.id));
  for (let i = 0; i < old.length; i += BATCH) {
    const batch = old.slice(i, i + BATCH);
    const writes: Write[] = batch
      // A copy made before a kill and changed since is newer: only the old one is left to remove.
      .filter((p) => (keyed.get(migratedProposalId(p)) ?? 0) <= p.version)
      .map((p) => ({ kind: 'put', collection: 'proposals', record: { ...p, id: migratedProposalId(p) } }));
    for (const result of await commitAll(store, writes)) if (!result.ok) throw result.error;
    crashPoint('migrate:proposals-copied');
    for (const p of batch) await store.delete('proposals', p.id);
  }
  await markStepDone(store, PROPOSAL_KEYS_MIGRATED_ID);
  return { already_done: false, proposals: old.length };
}

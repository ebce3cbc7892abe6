/**
 * Domain proposals read by key (issue 32): an answer reads the proposals of its workflow and
 * domain by the key their ids carry, and Memory and `handoff rules` read the open ones through
 * the status index, never every proposal ever made. A workspace an earlier build wrote (ids
 * without the key; on DynamoDB, open ones without the status index's keys) is read the older way
 * until `handoff store migrate` moves them, once. Both stores: JSON files and dynalite.
 */
import path from 'node:path';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import type { DomainProposal } from '../../shared/records/proposals.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { listProposals, openProposals } from '../../shared/runs/domain-proposals.ts';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import {
  isKeyedProposalId,
  migratedProposalId,
  proposalPrefix,
  PROPOSAL_KEYS_MIGRATED_ID,
} from '../../shared/runs/proposal-keys.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { newId } from '../../shared/store/ids.ts';
import { createApp } from '../../shared/web/app.ts';
import { openBackendStore, type BackendStore } from '../support/backend-store.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { fullQueries, spyOnStore, watchListings, type StoreSpy } from '../support/store-spy.ts';

const HISTORY = 40; // decided proposals of other domains, as an earlier build wrote them

const neutral = (from: string) =>
  mail({
    from,
    subject: `Note from ${from}`,
    body: 'Hi,\n\nPlease see the attached note when convenient.\n',
  });

/** A proposal as an earlier build wrote it: an id without its (workflow, domain) key. */
function olderProposal(domain: string, status: DomainProposal['status']): Omit<DomainProposal, 'version'> {
  return {
    id: newId('prop'),
    workflow_id: 'inbox',
    domain,
    action: 'archive',
    status,
    evidence: [],
    rule_id: null,
    created_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    decided_at: status === 'proposed' ? null : new Date(Date.UTC(2026, 0, 2)).toISOString(),
  };
}

describe.each(['JSON files', 'dynalite'])('domain proposals read by key on %s', (backend) => {
  let backendStore: BackendStore;
  let spy: StoreSpy;
  let fixture: EngineFixture;
  let olderOpen: Omit<DomainProposal, 'version'>;

  /** Answers every waiting question of a new run over mail from `senders`, archive. */
  async function runAndAnswer(senders: string[]): Promise<void> {
    await writeMaildir(fixture.maildir, senders.map(neutral));
    await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    for (const d of await listPending(spy.store)) await decide(fixture.deps, d.id, 'archive', null);
  }

  /** Runs `act` with the spy cleared; what it read in full, and the folders it listed on JSON files. */
  async function readsOf(
    act: () => Promise<unknown>,
  ): Promise<{ full: string[]; listed: string[]; proposals: number }> {
    spy.reset();
    backendStore.sent.splice(0);
    const watch = watchListings(backendStore.stateDir);
    try {
      await act();
    } finally {
      watch.stop();
    }
    return {
      full: [...spy.fullReads, ...fullQueries(backendStore.sent)],
      proposals: spy.recordsRead.proposals ?? 0,
      listed: watch.listings.map((l) => l.dir).filter((d) => d.split(path.sep)[0] === 'proposals'),
    };
  }

  beforeAll(async () => {
    backendStore = await openBackendStore(backend, 'proposal-keys');
    spy = spyOnStore(backendStore.store);
    fixture = await engineFixture({ messages: [], store: spy.store, model: () => new OfflineModel() });
    // Prepare: the history an earlier build left: decided proposals of other domains, and one
    // still open for acme.example (on DynamoDB without the status index's keys it now has).
    const statuses = ['accepted', 'dismissed', 'withdrawn'] as const;
    for (let i = 0; i < HISTORY; i++)
      await spy.store.create('proposals', olderProposal(`old${i}.example`, statuses[i % 3]!));
    olderOpen = olderProposal('acme.example', 'proposed');
    await spy.store.create('proposals', olderOpen);
    if (backendStore.client)
      await backendStore.client.send(
        new UpdateItemCommand({
          TableName: backendStore.table,
          Key: { pk: { S: 'default#proposals' }, sk: { S: olderOpen.id } },
          UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
        }),
      );
  });

  afterAll(async () => {
    await fixture.cleanup();
    await backendStore.close();
  });

  it('before the migration, the open lists and an answer still find a proposal an earlier build made', async () => {
    // Act: the open proposals; then two senders of acme.example answered alike.
    const open = await openProposals(spy.store);
    const { full } = await readsOf(() => runAndAnswer(['ana@acme.example', 'bo@acme.example']));

    // Assess: the older open proposal is listed, and the answer refreshed it (no second one),
    // reading every proposal as an earlier build did (nothing says they are keyed yet).
    expect(open.map((p) => p.id)).toEqual([olderOpen.id]);
    const acme = (await listProposals(spy.store)).filter((p) => p.domain === 'acme.example');
    expect(acme).toHaveLength(1);
    expect(acme[0]).toMatchObject({ id: olderOpen.id, status: 'proposed' });
    expect(acme[0]!.evidence.map((e) => e.sender).sort()).toEqual(['ana@acme.example', 'bo@acme.example']);
    expect(full).toContain('list proposals');
    expect(await spy.store.get('settings', PROPOSAL_KEYS_MIGRATED_ID)).toBeUndefined();
  });

  it('the migration gives every older proposal its keyed id, survives a kill after a copy, and is idempotent', async () => {
    // Prepare: one proposal copied to its keyed id by a migration killed before it removed the old one.
    const before = await listProposals(spy.store);
    const copied = before.find((p) => p.domain === 'old0.example')!;
    await spy.store.put('proposals', { ...copied, id: migratedProposalId(copied) });

    // Act: migrate, then migrate again.
    const first = await migrateKeys(spy.store);
    const after = await listProposals(spy.store);
    const second = await migrateKeys(spy.store);

    // Assess: each proposal once, at its keyed id, as it was; the second run changed nothing.
    expect(first.proposals_keyed).toBe(HISTORY + 1);
    const byId = (list: DomainProposal[]) => [...list].sort((x, y) => x.id.localeCompare(y.id));
    const moved = before.map((p) => ({ ...p, id: migratedProposalId(p) }));
    expect(byId(after)).toEqual(byId(moved));
    expect(after.every((p) => isKeyedProposalId(p.id))).toBe(true);
    expect(second).toMatchObject({ already_done: true, proposals_keyed: 0 });
    expect(byId(await listProposals(spy.store))).toEqual(byId(after));
    expect((await openProposals(spy.store)).map((p) => p.id)).toEqual([migratedProposalId(olderOpen)]);
  });

  it('after it, an answer reads only its domain’s proposals by key, and the open lists read the status index', async () => {
    // Act: a third acme.example sender answered alike; two senders of a new domain answered alike.
    const acme = await readsOf(() => runAndAnswer(['cy@acme.example']));
    const zeta = await readsOf(() => runAndAnswer(['di@zeta.example', 'ed@zeta.example']));
    let open: DomainProposal[] = [];
    const lists = await readsOf(async () => (open = await openProposals(spy.store)));
    const app = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: backendStore.stateDir, HANDOFF_API_KEY: 'proposal-keys-key' }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
    });
    let body = '';
    const memory = await readsOf(async () => (body = await (await app.request('/memory')).text()));

    // Assess: the refreshed proposal and the new one, keyed, both open and shown on Memory ...
    expect(open.map((p) => [p.domain, p.evidence.length])).toEqual([
      ['acme.example', 3],
      ['zeta.example', 2],
    ]);
    expect(open[1]!.id.startsWith(proposalPrefix('inbox', 'zeta.example'))).toBe(true);
    expect(body).toContain('Anything from zeta.example');
    expect(body).toContain('Anything from acme.example');
    // ... and no path read every proposal (on JSON files, not even the proposals' folder names):
    // of the 42 proposals, the answer read acme.example's one, the lists the two open ones.
    expect([acme.proposals, zeta.proposals, lists.proposals]).toEqual([1, 0, 2]);
    for (const reads of [acme, zeta, lists, memory]) {
      expect(reads.full).toEqual([]);
      expect(reads.listed.filter((d) => d === 'proposals')).toEqual([]);
    }
  });

  it('the spy notes a full read of the proposals (so the checks above can fail)', async () => {
    const { full } = await readsOf(() => listProposals(spy.store));
    expect(full).toContain('list proposals');
    if (backend === 'dynalite') expect(full).toContain('QueryCommand default#proposals');
  });
});

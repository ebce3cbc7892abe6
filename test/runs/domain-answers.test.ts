/**
 * The per-(workflow, domain) record of teaching answers (shared/runs/domain-answers.ts) that
 * lets a domain proposal read only its domain's decisions: written with each answer, gathered
 * once from the answers given before it existed, and merged (never overwritten) when two
 * writers meet. On the JSON-file store; decide-page-requests.test.ts counts the DynamoDB reads.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import {
  BACKFILLED_ID,
  MAX_DOMAIN_ANSWERS,
  domainAnswersId,
  recordDomainAnswer,
} from '../../shared/runs/domain-answers.ts';
import { listProposals } from '../../shared/runs/domain-proposals.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';

let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** A paused run with one unsure question per sender; the learner is the offline model. */
async function askedAbout(senders: string[]) {
  const executor = executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'unsure' }));
  fixture = await engineFixture({
    messages: senders.map((from) => mail({ from, subject: `Note from ${from}` })),
    model: () => new ScriptedModel(executor),
  });
  fixture.deps.models = async (role) =>
    role === 'fallback' ? new OfflineModel() : new ScriptedModel(executor);
  await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  const pending = await listPending(fixture.store);
  return (sender: string) => pending.find((d) => d.sender === sender)!;
}

const record = (domain: string) => fixture!.store.get('domain_answers', domainAnswersId('inbox', domain));

describe("a domain's teaching answers, kept on one record", () => {
  it('are written with each answer; exceptions and public mail providers are left out', async () => {
    // Prepare
    const of = await askedAbout(['ann@partner.example', 'bob@partner.example', 'tomi@gmail.com']);

    // Act
    await decide(fixture!.deps, of('ann@partner.example').id, 'archive', null);
    await decide(fixture!.deps, of('bob@partner.example').id, 'skip', 'an exception: just this once');
    await decide(fixture!.deps, of('tomi@gmail.com').id, 'archive', null);

    // Assess
    expect(await record('partner.example')).toMatchObject({
      workflow_id: 'inbox',
      domain: 'partner.example',
      answers: { [of('ann@partner.example').id]: { sender: 'ann@partner.example', action: 'archive' } },
    });
    expect(Object.keys((await record('partner.example'))!.answers as object)).toHaveLength(1);
    expect(await record('gmail.com')).toBeUndefined();
    expect(await fixture!.store.get('domain_answers', BACKFILLED_ID)).toBeDefined();
  });

  it('gathers the answers given before the records existed, once, and judges a proposal on all of them', async () => {
    // Prepare: two answers about one domain, then the records removed, as in a workspace
    // whose answers were given before this release.
    const of = await askedAbout(['ann@partner.example', 'bob@partner.example', 'cy@partner.example']);
    await decide(fixture!.deps, of('ann@partner.example').id, 'archive', null);
    await decide(fixture!.deps, of('bob@partner.example').id, 'skip', null);
    for (const r of await fixture!.store.list('domain_answers'))
      await fixture!.store.delete('domain_answers', r.id);
    for (const p of await listProposals(fixture!.store)) await fixture!.store.delete('proposals', p.id);

    // Act: the next answer agrees with bob's.
    await decide(fixture!.deps, of('cy@partner.example').id, 'skip', null);

    // Assess: every answer is on the record again, and they disagree: no proposal.
    const gathered = (await record('partner.example'))!.answers as Record<string, { action: string }>;
    expect(Object.fromEntries(Object.entries(gathered).map(([id, a]) => [id, a.action]))).toEqual({
      [of('ann@partner.example').id]: 'archive',
      [of('bob@partner.example').id]: 'skip',
      [of('cy@partner.example').id]: 'skip',
    });
    expect(await listProposals(fixture!.store)).toEqual([]);
    expect(await fixture!.store.get('domain_answers', BACKFILLED_ID)).toBeDefined();
  });

  it("adds to a record another writer changed first, keeping the other writer's answers", async () => {
    // Prepare: one answer recorded; another process then adds an answer of its own.
    const of = await askedAbout(['ann@partner.example', 'bob@partner.example']);
    const ann = await decide(fixture!.deps, of('ann@partner.example').id, 'archive', null);
    const stored = (await record('partner.example'))!;
    const theirs = {
      ...(stored.answers as object),
      dec_elsewhere: { sender: 'di@partner.example', action: 'archive' },
    };
    await fixture!.store.update('domain_answers', { ...stored, answers: theirs }, stored.version as number);

    // Act: an answer whose commit lost the record to that writer is added again, conditionally.
    const bob = { ...of('bob@partner.example'), status: 'answered' as const };
    const merged = await recordDomainAnswer(fixture!.store, {
      ...bob,
      answer: { action: 'archive', note: null, by: 'human', at: new Date().toISOString() },
    });

    // Assess
    expect(Object.keys(merged!.answers).sort()).toEqual([ann.decision_id, bob.id, 'dec_elsewhere'].sort());
    expect(merged!.version).toBe((stored.version as number) + 2);
  });

  it('keeps the most recent answers of a domain only, so an answer reads a bounded number of decisions', async () => {
    // Prepare: the domain's record already full with older answers
    const of = await askedAbout(['ann@partner.example']);
    const older = Object.fromEntries(
      Array.from({ length: MAX_DOMAIN_ANSWERS }, (_, i) => [
        `dec_old_${String(i).padStart(3, '0')}`,
        { sender: `p${i}@partner.example`, action: 'archive' },
      ]),
    );
    await fixture!.store.put('domain_answers', { id: BACKFILLED_ID, at: new Date().toISOString() });
    await fixture!.store.create('domain_answers', {
      id: domainAnswersId('inbox', 'partner.example'),
      workflow_id: 'inbox',
      domain: 'partner.example',
      answers: older,
    });

    // Act
    await decide(fixture!.deps, of('ann@partner.example').id, 'archive', null);

    // Assess: the newest is in, the oldest is out, the count stays at the cap
    const kept = Object.keys((await record('partner.example'))!.answers as object);
    expect(kept).toHaveLength(MAX_DOMAIN_ANSWERS);
    expect(kept.at(-1)).toBe(of('ann@partner.example').id);
    expect(kept).not.toContain('dec_old_000');
    expect(kept).toContain('dec_old_001');
  });
});

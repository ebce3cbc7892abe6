import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { acceptProposal, dismissProposal, listProposals } from '../../shared/runs/domain-proposals.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

const neutral = (from: string, subject = `Note from ${from}`) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

/** One run over `senders`; every question answered by `answer(sender)` ([action, note]). */
async function runAndAnswer(senders: string[], answer: (sender: string) => [string, string | null]) {
  if (fixture)
    await writeMaildir(
      fixture.maildir,
      senders.map((s) => neutral(s)),
    );
  else
    fixture = await engineFixture({
      messages: senders.map((s) => neutral(s)),
      model: () => new OfflineModel(),
    });
  const run = await startRun(fixture.deps, 'inbox', manual);
  for (const d of await listPending(store())) await decide(fixture.deps, d.id, ...answer(d.sender));
  return run;
}

/** The store of the current fixture. */
const store = () => fixture!.store;

const archive = (): [string, string | null] => ['archive', null];

describe('Memory proposes a domain rule from answers about two senders of one domain', () => {
  it('proposes it with its evidence, never applies it on its own, and makes it your rule when accepted', async () => {
    await runAndAnswer(['ana@acme.example', 'bo@acme.example'], archive);
    const [proposal, ...more] = await listProposals(store());
    expect(more).toEqual([]);
    expect(proposal).toMatchObject({ domain: 'acme.example', action: 'archive', status: 'proposed' });
    expect(proposal!.evidence.map((e) => [e.sender, e.action]).sort()).toEqual([
      ['ana@acme.example', 'archive'],
      ['bo@acme.example', 'archive'],
    ]);

    // Not applied: a new sender of the domain is still asked.
    const second = await runAndAnswer(['cy@acme.example'], archive);
    expect(second.counts).toMatchObject({ deferred: 1, by_your_rules: 0 });
    expect((await listProposals(store()))[0]!.evidence).toHaveLength(3); // the new answer is evidence too

    const rule = await acceptProposal(store(), proposal!.id);
    expect(rule).toMatchObject({ source: 'you', match: { domain: 'acme.example' }, action: 'archive' });
    expect(rule.note).toContain('ana@acme.example');
    expect(rule.note).toContain(proposal!.evidence[0]!.decision_id);
    expect((await listProposals(store()))[0]).toMatchObject({ status: 'accepted', rule_id: rule.id });

    const third = await runAndAnswer(['dan@acme.example'], archive);
    expect(third.counts).toMatchObject({ deferred: 0, by_your_rules: 1 });
    expect(await listAudit(store(), { runId: third.id })).toContainEqual(
      expect.objectContaining({ decided_by: 'memory', rule_id: rule.id, action: 'archive' }),
    );
    await expect(acceptProposal(store(), proposal!.id)).rejects.toThrow(/already accepted/);
    expect(await listRules(store())).toHaveLength(4); // three learned sender rules and one accepted rule
  });

  it('proposes nothing for a public mail provider, one sender, disagreeing answers or exceptions', async () => {
    await runAndAnswer(
      [
        'tomi@gmail.com',
        'lea@gmail.com',
        'ana@solo.example',
        'x@mixed.example',
        'y@mixed.example',
        'p@once.example',
        'q@once.example',
      ],
      (sender) =>
        sender === 'y@mixed.example'
          ? ['file_ticket', null]
          : sender === 'q@once.example'
            ? ['archive', 'just this once']
            : ['archive', null],
    );
    expect(await listProposals(store())).toEqual([]);
  });

  it('withdraws an open proposal a later answer contradicts, and does not propose a dismissed one again', async () => {
    await runAndAnswer(
      ['ana@acme.example', 'bo@acme.example', 'ana@beta.example', 'bo@beta.example'],
      archive,
    );
    const proposals = await listProposals(store());
    const acme = proposals.find((p) => p.domain === 'acme.example')!;
    const beta = proposals.find((p) => p.domain === 'beta.example')!;
    await dismissProposal(store(), beta.id);

    await runAndAnswer(['cy@acme.example', 'cy@beta.example'], (s) =>
      s.endsWith('acme.example') ? ['file_ticket', null] : ['archive', null],
    );
    const after = await listProposals(store());
    expect(after.map((p) => [p.domain, p.status]).sort()).toEqual([
      ['acme.example', 'withdrawn'],
      ['beta.example', 'dismissed'],
    ]);
    await expect(acceptProposal(store(), acme.id)).rejects.toThrow(/already withdrawn/);
  });
});

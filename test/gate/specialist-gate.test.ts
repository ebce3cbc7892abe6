import { StateStore } from '@strands-agents/sdk';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { SPECIALISTS, proposeOnce, specialistsScript } from '../handoffs/fixtures/specialists.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => {
  jest.restoreAllMocks();
  return fixture?.cleanup();
});

/** Every item goes to the newsletters specialist, which proposes `proposal`. */
function toNewsletters(proposal: Record<string, unknown>) {
  return () =>
    new ScriptedModel(
      specialistsScript({
        executor: () => ({ intent: 'newsletters' }),
        specialist: proposeOnce(() => proposal),
      }),
    );
}

describe('the gate in front of a specialist', () => {
  it("asks about a specialist's irreversible action whatever its confidence, and carries out the answer in its name", async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'news@old-list.example', subject: 'Digest nobody reads' })],
      model: toNewsletters({ action: 'delete', confidence: 0.99, reasoning: 'nobody reads it' }),
      workflowExtra: SPECIALISTS,
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    const [question] = await listPending(fixture.store);
    expect(question).toMatchObject({ suggested_action: 'delete', reason: 'irreversible', confidence: 0.99 });
    expect(await fixture.folder('.Trash')).toEqual([]); // asked, not acted
    expect(await fixture.inbox()).toHaveLength(1);

    await decide(fixture.deps, question!.id, 'approve_suggested', 'yes, drop it');

    const acted = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.outcome === 'acted');
    expect(acted).toEqual([
      expect.objectContaining({
        action: 'delete',
        decided_by: 'human',
        agent: 'newsletters',
        note: 'yes, drop it',
      }),
    ]);
    expect(await fixture.folder('.Trash')).toHaveLength(1);
  });

  it("asks about an action outside the specialist's own, even a declared one it is sure of", async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'news@list.example', subject: 'Weekly digest' })],
      model: toNewsletters({ action: 'file_ticket', confidence: 0.95, reasoning: 'a ticket, surely' }),
      workflowExtra: SPECIALISTS, // newsletters may archive or delete, not file tickets
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.counts).toMatchObject({ acted: 0, deferred: 1 });
    expect(await listPending(fixture.store)).toEqual([
      expect.objectContaining({ suggested_action: 'file_ticket', reason: 'unknown_action' }),
    ]);
    expect(await fixture.store.list('tickets')).toEqual([]);
  });

  it("applies the person's rules to a specialist's items first", async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'news@vendor.example', subject: 'Vendor digest' })],
      model: toNewsletters({ action: 'archive', confidence: 0.2, reasoning: 'unsure' }),
      workflowExtra: SPECIALISTS,
    });
    await addRule(fixture.store, {
      workflowId: null,
      match: { domain: 'vendor.example' },
      action: 'archive',
      note: 'vendor mail',
    });

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.counts).toMatchObject({ acted: 1, by_your_rules: 1, deferred: 0 });
    const acted = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.outcome === 'acted');
    expect(acted).toEqual([expect.objectContaining({ decided_by: 'memory', agent: 'newsletters' })]);
  });
});

describe('the run ledger', () => {
  it('writes the deferred list to the persisted state once per pause, however many items are set aside', async () => {
    const n = 25;
    fixture = await engineFixture({
      messages: Array.from({ length: n }, (_, i) =>
        mail({ from: `p${i}@x.example`, subject: `Unsure ${i}` }),
      ),
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.3, reasoning: 'unsure' })),
        ),
    });
    const set = jest.spyOn(StateStore.prototype, 'set');

    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.counts.deferred).toBe(n);
    expect(await listPending(fixture.store)).toHaveLength(n);
    const deferredWrites = set.mock.calls.filter(([key]) => key === 'deferred');
    expect(deferredWrites).toHaveLength(1);
    expect(deferredWrites[0]![1]).toHaveLength(n);
  });
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { checkProposal, type LearnerCase } from '../../shared/agents/learner/proposal.ts';
import { learnFromDecision } from '../../shared/runs/learn.ts';
import { findCoveringRule } from '../../shared/memory/match.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { learnerSessionId, readSession } from '../../shared/recorder/store-sink.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel } from '../support/scripted-model.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());
const answered = answeredDecision;

async function offline() {
  fixture = await engineFixture({ messages: [], model: () => new OfflineModel() });
  return fixture;
}

describe('the learner (offline model) writes one narrow rule per answer', () => {
  it('with no note, the exact sender', async () => {
    const { deps } = await offline();
    const outcome = await learnFromDecision(deps, answered({ action: 'archive' }));
    expect(outcome).toMatchObject({
      kind: 'learned',
      rule: { match: { sender: 'ana@vendor.example' }, action: 'archive' },
    });
  });

  it("records the learner's model turns and tool calls in the run's trace and usage", async () => {
    const { deps, store } = await offline();
    const decision = answered({ action: 'archive' });
    await learnFromDecision(deps, decision);
    const session = await readSession(store, learnerSessionId(decision.id));
    expect(session).toMatchObject({ run_id: 'run_1' });
    const learner = (session?.entries ?? []).filter((e) => 'node' in e && e.node === 'learner');
    expect(learner.filter((e) => e.kind === 'model').length).toBeGreaterThan(0);
    expect(learner.flatMap((e) => (e.kind === 'tool' ? [e.tool] : []))).toContain('write_rule');
    const usage = await store.list('usage');
    expect(usage).toEqual([expect.objectContaining({ run_id: 'run_1', calls: expect.any(Number) })]);
  });

  it('a whole domain when the note says so, and shows where it came from', async () => {
    const { deps, store } = await offline();
    const decision = answered({ action: 'archive', note: 'Anything from this company can be archived' });
    await learnFromDecision(deps, decision);
    const [rule] = await listRules(store);
    expect(rule).toMatchObject({
      match: { domain: 'vendor.example' },
      source: 'learned',
      decision_id: decision.id,
      item_id: decision.item_id,
      note: 'Anything from this company can be archived',
      workflow_id: 'inbox',
      superseded_by: null,
    });
  });

  it('never a domain rule for a public mail provider, whatever the note says', async () => {
    const { deps } = await offline();
    const outcome = await learnFromDecision(
      deps,
      answered({
        action: 'draft_reply',
        sender: 'tomi@gmail.com',
        note: 'anything from this company: reply',
      }),
    );
    expect(outcome).toMatchObject({ kind: 'learned', rule: { match: { sender: 'tomi@gmail.com' } } });
  });

  it('distinctive keywords when the note names a topic found in the message', async () => {
    const { deps } = await offline();
    const outcome = await learnFromDecision(
      deps,
      answered({ action: 'file_ticket', note: 'anything about overdue invoice payment goes to billing' }),
    );
    expect(outcome.kind).toBe('learned');
    const rule = (outcome as { rule: { match: { keywords?: string[] } } }).rule;
    expect(rule.match.keywords?.length).toBeGreaterThanOrEqual(2);
    expect(rule.match.keywords).toEqual(expect.arrayContaining(['overdue', 'invoice']));
  });

  it('nothing for a one-off or for an irreversible action', async () => {
    const { deps } = await offline();
    expect(
      (await learnFromDecision(deps, answered({ action: 'archive', note: 'just this once' }))).kind,
    ).toBe('none');
    expect((await learnFromDecision(deps, answered({ action: 'delete' }))).kind).toBe('none');
    expect(await listRules(deps.store)).toEqual([]);
  });

  it('does not write the same rule twice', async () => {
    const { deps, store } = await offline();
    await learnFromDecision(deps, answered({ action: 'archive' }));
    expect((await learnFromDecision(deps, answered({ action: 'archive' }))).kind).toBe('known');
    expect(await listRules(store)).toHaveLength(1);
  });

  it('replaces a learned rule that a newer answer contradicts; the old one stays as history and never fires', async () => {
    const { deps, store } = await offline();
    await learnFromDecision(
      deps,
      answered({ action: 'archive', note: 'anything from this company can be archived' }),
    );
    const later = answered({ action: 'file_ticket', sender: 'support@vendor.example' });
    const outcome = await learnFromDecision(deps, later);
    expect(outcome).toMatchObject({ kind: 'learned', superseded: [{ match: { domain: 'vendor.example' } }] });
    const rules = await listRules(store);
    const old = rules.find((r) => 'domain' in r.match)!;
    expect(old.superseded_by).toBe((outcome as { rule: { id: string } }).rule.id);
    const item = { senderAddress: 'billing@vendor.example', subject: 'Receipt', text: '' };
    expect(findCoveringRule(rules, 'inbox', item)).toBeUndefined(); // the superseded domain rule no longer fires
  });
});

describe('every proposal is checked against the decision it must explain', () => {
  const learnerCase: LearnerCase = {
    decision_id: 'dec_1',
    workflow_id: 'inbox',
    sender: 'ana@vendor.example',
    sender_domain: 'vendor.example',
    subject: 'Invoice 4411 is overdue',
    snippet: 'the payment link is below',
    suggested_action: 'archive',
    chosen_action: 'archive',
    irreversible: false,
    note: 'anything from this company',
  };
  const propose = (match: object, action = 'archive') =>
    checkProposal({ match: match as never, action, pattern: 'p', confidence: 0.9 }, learnerCase);

  it('accepts the sender, its own domain and keywords found in the message', () => {
    expect(propose({ sender: 'ANA@vendor.example' })).toBeNull();
    expect(propose({ domain: '@vendor.example' })).toBeNull();
    expect(propose({ keywords: ['invoice', 'overdue'] })).toBeNull();
  });

  it('refuses another sender, another domain, a parent domain, and a different action', () => {
    expect(propose({ sender: 'bob@vendor.example' })).toMatch(/exactly/);
    expect(propose({ domain: 'example' })).toMatch(/sender's own/);
    expect(propose({ domain: 'other.example' })).toMatch(/sender's own/);
    expect(propose({ sender: 'ana@vendor.example' }, 'file_ticket')).toMatch(/repeat/);
  });

  it('refuses keywords that are common words or absent from the message', () => {
    expect(propose({ keywords: ['the', 'invoice'] })).toMatch(/distinctive/);
    expect(propose({ keywords: ['invoice', 'refund'] })).toMatch(/appear/);
  });

  it('allows nothing wider than the sender without a note', () => {
    expect(
      checkProposal(
        { match: { domain: 'vendor.example' }, action: 'archive', pattern: 'p', confidence: 1 },
        { ...learnerCase, note: null },
      ),
    ).toMatch(/without a note/);
  });

  it('turns a model that proposes something too broad into no rule', async () => {
    fixture = await engineFixture({
      messages: [],
      model: () =>
        new ScriptedModel((results) =>
          results.length === 0
            ? {
                toolCalls: [
                  {
                    name: 'write_rule',
                    input: { match: { domain: 'example' }, action: 'archive', pattern: 'all', confidence: 1 },
                  },
                ],
              }
            : { text: 'ok' },
        ),
    });
    const outcome = await learnFromDecision(
      fixture.deps,
      answered({ action: 'archive', note: 'anything from them' }),
    );
    expect(outcome.kind).toBe('none');
    expect(await listRules(fixture.store)).toEqual([]);
  });
});

describe('the note names the domain', () => {
  it('"all mail from vendor.example can be archived" is a domain rule', async () => {
    const { deps } = await offline();
    const outcome = await learnFromDecision(
      deps,
      answered({ action: 'archive', note: 'All mail from vendor.example can go straight to the archive' }),
    );
    expect(outcome).toMatchObject({ kind: 'learned', rule: { match: { domain: 'vendor.example' } } });
  });
});

it('a note naming a look-alike domain does not widen the rule to the sender domain', async () => {
  const { deps } = await offline();
  const outcome = await learnFromDecision(
    deps,
    answered({ action: 'archive', note: 'all mail from evilvendor.example is junk' }),
  );
  expect(outcome).toMatchObject({ kind: 'learned', rule: { match: { sender: 'ana@vendor.example' } } });
});

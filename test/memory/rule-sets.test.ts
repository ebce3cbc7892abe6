/**
 * The copies of each scope's live rules (shared/memory/rule-sets.ts) that an answer reads by
 * key instead of listing every rule: the learner and the domain proposals decide exactly as
 * from the rule records, whoever else writes a rule, and a copy built from a listing that a
 * rule change overtook is never stored.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import {
  EVERY_WORKFLOW,
  MAX_KEPT_RULES,
  invalidateRuleSet,
  liveRulesOf,
  readRuleSets,
} from '../../shared/memory/rule-sets.ts';
import { addRule, listRules, revokeRule } from '../../shared/memory/rules-repository.ts';
import { learnFromDecision } from '../../shared/runs/learn.ts';
import type { Collection, JsonRecord, Store } from '../../shared/store/store.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture | undefined;
afterEach(() => fixture?.cleanup());
const answered = (sender: string, action: string) => answeredDecision({ sender, action });

/** The store with its listings of the rules counted. */
function countListings(store: Store): { store: Store; listings: () => number } {
  let listings = 0;
  const list = store.list.bind(store);
  store.list = (collection: Collection): Promise<JsonRecord[]> => {
    if (collection === 'rules') listings += 1;
    return list(collection);
  };
  return { store, listings: () => listings };
}

async function offline() {
  fixture = await engineFixture({ messages: [], model: () => new OfflineModel() });
  return fixture;
}

describe("the copies of a scope's live rules", () => {
  it('are listed once, then kept by the learner in the commit of the rules it writes', async () => {
    // Prepare: a workspace with a rule for every workflow, written by an earlier build (in no
    // key of rule-keys.ts: until `handoff store migrate`, answers read the copies).
    const { deps } = await offline();
    const { store, listings } = countListings(deps.store);
    await store.create('rules', {
      id: 'rule_legacy_1',
      workflow_id: null,
      match: { sender: 'x@y.example' },
      action: 'skip',
      source: 'you',
      note: null,
      created_at: new Date().toISOString(),
    });

    // Act: two answers teach two rules; then a third answer contradicts the first.
    const first = await learnFromDecision(deps, answered('ana@vendor.example', 'archive'));
    const second = await learnFromDecision(deps, answered('bo@other.example', 'archive'));
    const third = await learnFromDecision(deps, answered('ana@vendor.example', 'file_ticket'));

    // Assess: the rules were listed once (by the first answer); the copies hold what the
    // records say, the superseded rule gone from the live ones.
    expect(listings()).toBe(1);
    expect(first.kind).toBe('learned');
    expect(second.kind).toBe('learned');
    expect(third).toMatchObject({
      kind: 'learned',
      superseded: [{ id: first.kind === 'learned' && first.rule.id }],
    });
    const live = (await listRules(store)).filter((r) => r.superseded_by === null);
    expect((await liveRulesOf(store, 'inbox')).map((r) => r.id)).toEqual(live.map((r) => r.id));
    const { own, every } = await readRuleSets(store, 'inbox');
    expect(own.rules.map((r) => r.version)).toEqual([1, 1]); // the copy carries the stored versions
    expect(every.scope).toBe(EVERY_WORKFLOW);
  });

  it('a rule revoked, or set by a person, is seen by the next answer', async () => {
    // Prepare: a learned sender rule, copied.
    const { deps } = await offline();
    const learned = await learnFromDecision(deps, answered('ana@vendor.example', 'archive'));
    if (learned.kind !== 'learned') throw new Error('nothing learned');

    // Act: the person revokes it; the same answer again teaches it again (not "known").
    await revokeRule(deps.store, deps.mirror, learned.rule.id);
    const again = await learnFromDecision(deps, answered('ana@vendor.example', 'archive'));
    // ... and a domain rule set by hand reaches the copy of its workflow.
    await addRule(deps.store, {
      workflowId: 'inbox',
      match: { domain: 'vendor.example' },
      action: 'archive',
      note: null,
    });

    // Assess
    expect(again.kind).toBe('learned');
    expect((await liveRulesOf(deps.store, 'inbox')).map((r) => r.match)).toEqual([
      { sender: 'ana@vendor.example' },
      { domain: 'vendor.example' },
    ]);
  });

  it('a copy built from a listing that a rule change overtook is not stored', async () => {
    // Prepare: the listing of the rules is overtaken by a person adding a rule.
    const { deps } = await offline();
    const store = deps.store;
    const list = store.list.bind(store);
    let overtaken = false;
    store.list = async (collection: Collection) => {
      const listed = await list(collection);
      if (collection === 'rules' && !overtaken) {
        overtaken = true;
        await addRule(store, {
          workflowId: 'inbox',
          match: { sender: 'late@x.example' },
          action: 'skip',
          note: null,
        });
      }
      return listed;
    };

    // Act: the first read lists (without the late rule) and tries to store its copy.
    const stale = await liveRulesOf(store, 'inbox');

    // Assess: that read answered from its listing, but stored nothing fresh: the next one
    // lists again and sees the rule.
    expect(stale).toEqual([]);
    expect((await liveRulesOf(store, 'inbox')).map((r) => r.match)).toEqual([{ sender: 'late@x.example' }]);
  });

  it('keeps no copy of a scope past MAX_KEPT_RULES live rules: it is listed instead', async () => {
    const { deps } = await offline();
    const store = deps.store;
    for (let i = 0; i <= MAX_KEPT_RULES; i++)
      await store.create('rules', {
        id: `rule_${String(i).padStart(4, '0')}`,
        workflow_id: 'inbox',
        match: { sender: `s${i}@x.example` },
        action: 'archive',
        source: 'you',
        note: null,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      });
    await invalidateRuleSet(store, 'inbox');
    const { own } = await readRuleSets(store, 'inbox');
    expect(own.rules).toHaveLength(MAX_KEPT_RULES + 1);
    expect(own.version).toBeNull();
    expect((await store.get('rule_sets', 'inbox'))?.rules).toBeNull();
  });
});

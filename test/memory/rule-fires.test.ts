/**
 * Each rule records how often it fired and when last (shared/memory/rule-fires.ts): a run
 * adds one small write per rule that fired, never a rewrite of the rules or their keys. A
 * deleted rule stops firing at once and fires again once restored within the undo window;
 * after it, restoring is refused. Both stores: JSON files and dynalite.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UndoExpiredError } from '../../shared/errors/index.ts';
import { firesOf, foldRuleHits } from '../../shared/memory/rule-fires.ts';
import { rulesUnder, ruleKeyOf } from '../../shared/memory/rule-keys.ts';
import { addRule, listRules, revokeRule } from '../../shared/memory/rules-repository.ts';
import { restoreRule, UNDO_WINDOW_MS } from '../../shared/memory/rule-undo.ts';
import { noMirror } from '../../shared/memory/mirror.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import type { Rule } from '../../shared/records/rule.ts';
import type { Run } from '../../shared/records/runs.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store, Write } from '../../shared/store/store.ts';
import { dispatchFixture } from '../support/dispatch-fixture.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';

/** The store with every write to a rule collection noted as `<collection> <id>`. */
function watched(store: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const spied = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      if (['create', 'update', 'put'].includes(String(name)))
        return (collection: string, record: { id: string }, ...rest: unknown[]) => {
          if (collection.startsWith('rule')) writes.push(`${collection} ${record.id}`);
          return call(collection, record, ...rest);
        };
      if (name === 'delete')
        return (collection: string, id: string) => {
          if (collection.startsWith('rule')) writes.push(`${collection} ${id}`);
          return call(collection, id);
        };
      if (name === 'commit')
        return (batch: readonly Write[], ...rest: unknown[]) => {
          for (const w of batch)
            if (w.collection.startsWith('rule')) writes.push(`${w.collection} ${w.record.id}`);
          return call(batch, ...rest);
        };
      return call;
    },
  });
  return { store: spied, writes };
}

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

describe.each(['JSON files', 'dynalite'])('rule firings on %s', (backend) => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  let stateDir: string;
  let fixture: EngineFixture;
  let spy: ReturnType<typeof watched>;
  let ana: Rule;
  let bo: Rule;

  const run = async (...messages: ReturnType<typeof neutral>[]): Promise<Run> => {
    await writeMaildir(fixture.maildir, messages);
    return startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  };

  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-rule-fires-'));
    let store: Store;
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      const table = `handoff-rule-fires-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    } else store = new JsonFileStore(stateDir);
    spy = watched(store);
    fixture = await engineFixture({ messages: [], store: spy.store, model: () => new OfflineModel() });
    ana = await addRule(spy.store, {
      workflowId: null,
      match: { sender: 'ana@partner.example' },
      action: 'archive',
      note: null,
    });
    bo = await addRule(spy.store, {
      workflowId: null,
      match: { domain: 'vendor.example' },
      action: 'skip',
      note: null,
    });
  });

  afterAll(async () => {
    await fixture.cleanup();
    await fs.rm(stateDir, { recursive: true, force: true });
    client?.destroy();
    await dynalite?.stop();
  });

  it('a rule never fired says so', async () => {
    expect((await firesOf(spy.store, [ana.id, bo.id])).size).toBe(0);
  });

  it('a run writes one small record per rule that fired, and never the rules or their keys', async () => {
    spy.writes.splice(0);
    const before = Date.now();
    const first = await run(
      neutral('ana@partner.example', 'Statement'),
      neutral('ana@partner.example', 'Statement, second part'),
      neutral('ana@partner.example', 'Statement, third part'),
      neutral('bo@vendor.example', 'Account notice'),
    );
    expect(first).toMatchObject({ status: 'completed' });
    expect(first.counts.by_your_rules).toBe(4);
    const ruleWrites = spy.writes.filter((w) => !w.startsWith('rule_fires '));
    expect(ruleWrites).toEqual([]);
    expect(spy.writes.sort()).toEqual([`rule_fires ${ana.id}`, `rule_fires ${bo.id}`].sort());
    const fires = await firesOf(spy.store, [ana.id, bo.id]);
    expect(fires.get(ana.id)?.fired).toBe(3);
    expect(fires.get(bo.id)?.fired).toBe(1); // a rule that leaves an item alone fired too
    const last = Date.parse(fires.get(ana.id)!.last_fired_at!);
    expect(last).toBeGreaterThanOrEqual(before - 1000);
    expect(last).toBeLessThanOrEqual(Date.now());

    // The next run adds to it; a rule that did not fire is not written.
    spy.writes.splice(0);
    await run(neutral('ana@partner.example', 'Statement again'));
    expect(spy.writes).toEqual([`rule_fires ${ana.id}`]);
    expect((await firesOf(spy.store, [ana.id])).get(ana.id)?.fired).toBe(4);
    expect((await firesOf(spy.store, [bo.id])).get(bo.id)?.fired).toBe(1);
  });

  it('a deleted rule stops firing at once, and fires again once restored within the window', async () => {
    const t0 = new Date();
    const deleted = await revokeRule(spy.store, noMirror, ana.id, t0);
    expect(deleted.deleted_at).toBe(t0.toISOString());
    expect((await listRules(spy.store)).map((r) => r.id)).toEqual([bo.id]);
    expect((await rulesUnder(spy.store, [ruleKeyOf(ana)])).map((r) => r.id)).toEqual([]);

    const asked = await run(neutral('ana@partner.example', 'Statement while deleted'));
    expect(asked.status).toBe('waiting'); // nothing covered it: the person is asked
    expect(asked.counts.by_your_rules).toBe(0);
    expect((await firesOf(spy.store, [ana.id])).get(ana.id)?.fired).toBe(4);

    const restored = await restoreRule(
      spy.store,
      noMirror,
      ana.id,
      new Date(t0.getTime() + UNDO_WINDOW_MS - 1000),
    );
    expect(restored.deleted_at).toBeNull();
    expect((await rulesUnder(spy.store, [ruleKeyOf(ana)])).map((r) => r.id)).toEqual([ana.id]);
    expect((await listRules(spy.store)).map((r) => r.id).sort()).toEqual([ana.id, bo.id].sort());
    const again = await run(neutral('ana@partner.example', 'Statement after the undo'));
    expect(again.counts.by_your_rules).toBe(1);
    expect((await firesOf(spy.store, [ana.id])).get(ana.id)?.fired).toBe(5);
  });

  it('restoring after the window is refused, and the rule stays out', async () => {
    const t0 = new Date();
    await revokeRule(spy.store, noMirror, bo.id, t0);
    const late = new Date(t0.getTime() + UNDO_WINDOW_MS + 1000);
    await expect(restoreRule(spy.store, noMirror, bo.id, late)).rejects.toThrow(UndoExpiredError);
    await expect(restoreRule(spy.store, noMirror, bo.id, late)).rejects.toThrow(/no rule/);
    expect((await rulesUnder(spy.store, [ruleKeyOf(bo)])).map((r) => r.id)).toEqual([]);
    expect((await listRules(spy.store, { withDeleted: true })).map((r) => r.id)).toEqual([ana.id]);
  });
});

describe('rule firings in dispatch mode (each step in its own process)', () => {
  it('the executor step folds its hits when it ends; folding the same run again adds only what is new', async () => {
    const { fixture, sent } = await dispatchFixture();
    try {
      const rule = await addRule(fixture.store, {
        workflowId: null,
        match: { sender: 'a@x.example' },
        action: 'archive',
        note: null,
      });
      const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
      expect(sent.map((s) => s.node)).toEqual(['executor']);
      expect((await firesOf(fixture.store, [rule.id])).size).toBe(0); // the trigger step ran no rule
      expect(await runStep(fixture.deps, run.id, 'executor')).toMatchObject({ status: 'waiting' });
      expect((await firesOf(fixture.store, [rule.id])).get(rule.id)?.fired).toBe(1);

      // A step of the same run folded again (a retry, a later step) brings only its new hits.
      const at = new Date().toISOString();
      await foldRuleHits(fixture.store, run.id, { [rule.id]: { n: 1, last: at } });
      expect((await firesOf(fixture.store, [rule.id])).get(rule.id)?.fired).toBe(1);
      await foldRuleHits(fixture.store, run.id, { [rule.id]: { n: 3, last: at } });
      expect((await firesOf(fixture.store, [rule.id])).get(rule.id)).toEqual({ fired: 3, last_fired_at: at });
    } finally {
      await fixture.cleanup();
    }
  });
});

/**
 * An answer in a workspace whose rules are indexed by what they match (shared/memory/rule-keys.ts):
 * the learner reads the keys of the answer's sender, never a listing of the rules nor a copy of
 * every rule of the workflow, and writes its rule and that rule's key alone, however many rules
 * the workflow has. Both stores: JSON files and dynalite.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MAX_KEPT_RULES } from '../../shared/memory/rule-sets.ts';
import { ruleKeysReady, rulesUnder } from '../../shared/memory/rule-keys.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { learnFromDecision } from '../../shared/runs/learn.ts';
import { learnedOf } from '../../shared/runs/learned.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store, Write } from '../../shared/store/store.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

/** The store with every write (as `<collection> <id>`) and every listing noted. */
function watched(store: Store): { store: Store; writes: string[]; lists: string[] } {
  const writes: string[] = [];
  const lists: string[] = [];
  const spied = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      if (name === 'list') return (collection: string) => (lists.push(collection), call(collection));
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
  return { store: spied, writes, lists };
}

describe.each(['JSON files', 'dynalite'])('an answer with the rules by key on %s', (backend) => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  let stateDir: string;
  let fixture: EngineFixture;
  let spy: ReturnType<typeof watched>;
  // A learned rule belongs to the mailbox the mail came from (docs/rules-by-source.md).
  const anaKey = () => `src:maildir:${fixture.maildir}|s|ana@vendor.example`;

  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-answer-keys-'));
    let store: Store;
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      const table = `handoff-answer-keys-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    } else store = new JsonFileStore(stateDir);
    spy = watched(store);
    fixture = await engineFixture({ messages: [], store: spy.store, model: () => new OfflineModel() });
    expect(await ruleKeysReady(spy.store)).toBe(true); // a new workspace: its rules are indexed from the start
    // More rules than a workflow's copy would keep, none about the answers' senders.
    for (let i = 0; i <= MAX_KEPT_RULES + 20; i++)
      await addRule(spy.store, {
        workflowId: 'inbox',
        match: { sender: `s${i}@elsewhere.example` },
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

  it('learns by reading its keys, and writes its rule and its key alone', async () => {
    spy.writes.splice(0);
    spy.lists.splice(0);
    const decision = answeredDecision({ sender: 'ana@vendor.example', action: 'archive' });
    const first = await learnFromDecision(fixture.deps, decision);
    if (first.kind !== 'learned') throw new Error(`nothing learned: ${first.kind}`);
    expect(spy.lists).toEqual([]);
    expect(spy.writes.sort()).toEqual([`rules ${first.rule.id}`, `rule_keys ${anaKey()}`].sort());
    expect((await learnedOf(spy.store, decision)).rule?.id).toBe(first.rule.id);

    // A contradicting answer supersedes it: the new rule, the old one marked, their one key.
    spy.writes.splice(0);
    const second = await learnFromDecision(
      fixture.deps,
      answeredDecision({ sender: 'ana@vendor.example', action: 'file_ticket' }),
    );
    expect(second).toMatchObject({ kind: 'learned', superseded: [{ id: first.rule.id }] });
    if (second.kind !== 'learned') return;
    expect(spy.lists).toEqual([]);
    expect(spy.writes.sort()).toEqual(
      [`rules ${second.rule.id}`, `rules ${first.rule.id}`, `rule_keys ${anaKey()}`].sort(),
    );
    expect((await rulesUnder(spy.store, [anaKey()])).map((r) => r.id)).toEqual([second.rule.id]);
  });

  it('the same answer again is known, read by key, and writes nothing', async () => {
    spy.writes.splice(0);
    const again = await learnFromDecision(
      fixture.deps,
      answeredDecision({ sender: 'ana@vendor.example', action: 'file_ticket' }),
    );
    expect(again.kind).toBe('known');
    expect(spy.writes).toEqual([]);
    expect(spy.lists).toEqual([]);
  });
});

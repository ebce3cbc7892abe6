/**
 * Rules indexed by what they match (shared/memory/rule-keys.ts), and the rule-keys step of
 * `handoff store migrate`. Rules an earlier build wrote (in no key) keep firing, read the older
 * way, until the migration indexes them; from then a run reads the keys of its items only.
 * Killed (SIGKILL, a real child process) in the middle, the next migration finishes it; one
 * after that writes nothing. Both stores: JSON files and dynalite.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addRule, deleteRule } from '../../shared/memory/rules-repository.ts';
import {
  RULE_KEYS_MIGRATED_ID,
  ruleKeysReady,
  rulesUnder,
  keysForSender,
} from '../../shared/memory/rule-keys.ts';
import { RuleSchema, type Rule } from '../../shared/records/rule.ts';
import { migrateKeys } from '../../shared/runs/key-migration.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';
import { spyOnStore, type StoreSpy } from '../support/store-spy.ts';

/** A rule as an earlier build wrote it: its record only, in no key. */
function legacyRule(i: number, match: Rule['match'], extra: Partial<Rule> = {}): Rule {
  return RuleSchema.parse({
    id: `rule_legacy_${String(i).padStart(4, '0')}`,
    workflow_id: 'inbox',
    match,
    action: 'archive',
    source: 'you',
    note: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    ...extra,
  });
}

const messages = (tag: string) =>
  Array.from({ length: 3 }, (_, i) =>
    mail({ from: `shop${i}@vendor.example`, subject: `Question ${tag}${i}` }),
  );

/** Every question unsure: only a rule answers one without the person. */
const unsure = () => ({ action: 'archive', confidence: 0.4, reasoning: 'unsure' });

describe.each(['JSON files', 'dynalite'])('rules by what they match on %s', (backend) => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  let stateDir: string;
  let spy: StoreSpy;
  let fixture: EngineFixture;

  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-rule-keys-'));
    let store: Store;
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      const table = `handoff-rule-keys-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    } else store = new JsonFileStore(stateDir);
    spy = spyOnStore(store);
    fixture = await engineFixture({
      messages: messages('a'),
      store: spy.store,
      model: () => new ScriptedModel(executorScript(unsure)),
    });
    // An earlier build's rules: one for shop0, one superseded for shop1, one for every workflow's keywords.
    await store.create('rules', legacyRule(1, { sender: 'shop0@vendor.example' }));
    await store.create('rules', legacyRule(2, { sender: 'shop1@vendor.example' }, { superseded_by: 'x' }));
    await store.create('rules', legacyRule(3, { keywords: ['question', 'b2'] }, { workflow_id: null }));
  });

  afterAll(async () => {
    await fixture.cleanup();
    await fs.rm(stateDir, { recursive: true, force: true });
    client?.destroy();
    await dynalite?.stop();
  });

  it("before the migration a run lists the rules, and an earlier build's rule still fires", async () => {
    expect(await ruleKeysReady(spy.store)).toBe(false);
    spy.reset();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    expect(spy.fullReads).toContain('list rules'); // the older way, until the migration
    expect(run.counts).toMatchObject({ by_your_rules: 1, deferred: 2 }); // shop0's rule; shop1's was superseded
  });

  it('the migration indexes the live rules once; a second one reads only its markers', async () => {
    const report = await migrateKeys(spy.store);
    expect(report).toMatchObject({ already_done: false, rule_keys: 2 });
    expect(await ruleKeysReady(spy.store)).toBe(true);
    const under = await rulesUnder(
      spy.store,
      keysForSender('inbox', 'shop0@vendor.example', 'maildir:/mail/inbox'),
    );
    expect(under.map((r) => r.id)).toEqual(['rule_legacy_0001', 'rule_legacy_0003']);
    expect(await rulesUnder(spy.store, ['inbox|s|shop1@vendor.example'])).toEqual([]);

    spy.reset();
    expect(await migrateKeys(spy.store)).toMatchObject({ already_done: true, rule_keys: 0, runs: 0 });
    expect(spy.fullReads).toEqual([]);
  });

  it("after it, a run reads its items' keys only, and every rule fires as before", async () => {
    await writeMaildir(fixture.maildir, messages('b'));
    spy.reset();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    expect(spy.fullReads).toEqual([]);
    expect(run.counts).toMatchObject({ by_your_rules: 2, deferred: 1 }); // shop0's rule, and the keywords "Question b2"
  });

  it('a rule added goes into its key alone, and leaves it when deleted', async () => {
    const added = await addRule(spy.store, {
      workflowId: 'inbox',
      match: { domain: 'Vendor.example' },
      action: 'skip',
      note: null,
    });
    expect((await rulesUnder(spy.store, ['inbox|d|vendor.example'])).map((r) => r.id)).toEqual([added.id]);
    await deleteRule(spy.store, added.id);
    expect(await rulesUnder(spy.store, ['inbox|d|vendor.example'])).toEqual([]);
  });
});

/** Every rule key record's file, with a digest of its content. */
async function keyFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await fs.readdir(path.join(dir, 'rule_keys')).catch(() => [] as string[]))
    out[name] = createHash('sha256')
      .update(await fs.readFile(path.join(dir, 'rule_keys', name)))
      .digest('hex');
  return out;
}

describe('handoff store migrate: the rule-keys step, killed in the middle', () => {
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-rule-keys-cli-'));
  });
  afterAll(() => fs.rm(stateDir, { recursive: true, force: true }));

  it('finishes on the next run, then writes nothing', async () => {
    const RULES = 250; // three batches of keys
    const dir = workspaceDir(stateDir, 'default');
    const legacy = new JsonFileStore(dir);
    for (let i = 0; i < RULES; i++)
      await legacy.create('rules', legacyRule(i, { sender: `s${i}@x.example` }));
    const env = { HANDOFF_STATE_DIR: stateDir };

    // Act 1: killed after the first batch of keys, before the marker.
    const first = await runCli(['store', 'migrate', '--json'], {
      ...env,
      HANDOFF_CRASH_AT: 'migrate:rule-keys-batch',
    });
    expect(first.signal).toBe('SIGKILL');
    expect(Object.keys(await keyFiles(dir))).toHaveLength(100);
    expect(await ruleKeysReady(new JsonFileStore(dir))).toBe(false); // a run still lists the rules

    // Act 2: the run that finishes it.
    const second = await runCli(['store', 'migrate', '--json'], env);
    expect(second.code).toBe(0);
    expect((JSON.parse(second.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ workspace: 'default', rule_keys: RULES }),
    ]);
    const store = new JsonFileStore(dir);
    expect(await store.get('settings', RULE_KEYS_MIGRATED_ID)).toBeDefined();
    for (const i of [0, 99, 100, 249])
      expect((await rulesUnder(store, [`inbox|s|s${i}@x.example`])).map((r) => r.id)).toEqual([
        legacyRule(i, { sender: 'x@x.example' }).id,
      ]);

    // Act 3: once more: it reads its markers and writes nothing.
    const files = await keyFiles(dir);
    expect(Object.keys(files)).toHaveLength(RULES);
    const third = await runCli(['store', 'migrate', '--json'], env);
    expect(third.code).toBe(0);
    expect((JSON.parse(third.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ workspace: 'default', already_done: true, rule_keys: 0 }),
    ]);
    expect(await keyFiles(dir)).toEqual(files);
  });
});

/**
 * `handoff store migrate`, the keys step: a workspace written before its history was read by
 * key (audit ids without their run's key, questions with older ids, runs not marked) is
 * rewritten once. Killed (SIGKILL, a real child process) in the middle of it, twice, it is
 * readable throughout and the next run finishes it; a run after that changes nothing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditIdOf, legacyAuditIdOf } from '../../shared/actions/outcomes.ts';
import { auditOfRun } from '../../shared/audit/audit.ts';
import { isKeyedAuditId, migratedAuditId } from '../../shared/audit/audit-ids.ts';
import type { AuditEntry } from '../../shared/records/audit.ts';
import { EMPTY_COUNTS, RunSchema, type Run } from '../../shared/records/runs.ts';
import { decisionsOfRun } from '../../shared/runs/decision-repository.ts';
import { keysMigrated, migrateKeys } from '../../shared/runs/key-migration.ts';
import { sweepRuns } from '../../shared/aws/lambda-handlers.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { openPlatform } from '../../shared/workspaces/platform.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { newId, stableId } from '../../shared/store/ids.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { commitAll, type Store } from '../../shared/store/store.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { runCli } from '../support/cli.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { spyOnStore } from '../support/store-spy.ts';

const RUNS = 4;
const ENTRIES = 30; // per run, besides its run_started entry

/** A completed run as written before keys: no `keyed`, older audit and decision ids. */
function legacyRun(i: number): Omit<Run, 'version'> {
  return {
    id: `run_legacy_${i}`,
    workflow_id: 'inbox',
    status: 'completed',
    trigger: { kind: 'manual', detail: null },
    counts: { ...EMPTY_COUNTS, acted: ENTRIES },
    interrupt_id: null,
    dispatch: null,
    snapshot: null,
    error: null,
    owner: null,
    started_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    finished_at: new Date(Date.UTC(2026, 0, 1 + i, 1)).toISOString(),
  };
}

function legacyEntry(runId: string, n: number | null): AuditEntry {
  return {
    id: n === null ? stableId('aud', runId, 'run_started') : newId('aud'),
    run_id: runId,
    workflow_id: 'inbox',
    item_id: n === null ? null : `<item${n}@${runId}>`,
    outcome: n === null ? 'run_started' : 'acted',
    action: n === null ? null : 'archive',
    decided_by: n === null ? null : 'model',
    confidence: null,
    reasoning: null,
    note: null,
    rule_id: null,
    detail: null,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n ?? 0)).toISOString(),
  };
}

/** Writes the workspace as an older build left it. */
async function seedLegacy(store: Store): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    const run = legacyRun(i);
    const entries = [
      legacyEntry(run.id, null),
      ...Array.from({ length: ENTRIES }, (_, n) => legacyEntry(run.id, n)),
    ];
    const decisions = [0, 1].map((k) =>
      answeredDecision({ action: 'archive', id: stableId('dec', run.id, `q${k}`), run_id: run.id }),
    );
    const results = await commitAll(store, [
      { kind: 'create', collection: 'runs', record: run },
      ...entries.map((record) => ({ kind: 'put' as const, collection: 'audit' as const, record })),
      ...decisions.map((record) => ({ kind: 'create' as const, collection: 'decisions' as const, record })),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
  }
}

/** What each run's audit says, whatever the ids: (item, outcome) pairs, sorted. */
async function auditByRun(store: Store): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < RUNS; i++) {
    const run = RunSchema.parse(await store.get('runs', `run_legacy_${i}`));
    out[run.id] = (await auditOfRun(store, run)).map((e) => `${e.item_id ?? '-'} ${e.outcome}`).sort();
  }
  return out;
}

/** Every file of the workspace's records (in their run's folders too), by path, with a digest of its content. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
      const name = path.join(rel, entry.name);
      if (entry.isDirectory()) await walk(name);
      else if (entry.name.endsWith('.json'))
        out[name] = createHash('sha256')
          .update(await fs.readFile(path.join(dir, name)))
          .digest('hex');
    }
  };
  for (const collection of ['runs', 'audit', 'decisions', 'settings', 'domain_answers'])
    await walk(collection);
  return out;
}

describe('handoff store migrate: the keys step on JSON files, killed in the middle', () => {
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-keys-'));
  });
  afterAll(() => fs.rm(stateDir, { recursive: true, force: true }));

  it('survives two kills, finishes on the next run, then changes nothing', async () => {
    // Prepare: a workspace as an older build left it.
    const dir = workspaceDir(stateDir, 'default');
    await seedLegacy(new JsonFileStore(dir));
    const before = await auditByRun(new JsonFileStore(dir));
    expect(before['run_legacy_0']).toHaveLength(ENTRIES + 1);
    const env = { HANDOFF_STATE_DIR: stateDir };

    // Act 1: killed after the first entries were copied to their keyed ids, before the old ones went.
    const first = await runCli(['store', 'migrate', '--json'], {
      ...env,
      HANDOFF_CRASH_AT: 'migrate:audit-copied',
    });
    expect(first.signal).toBe('SIGKILL');
    // Assess: each entry read once, as before (the copy and its original are one entry).
    expect(await auditByRun(new JsonFileStore(dir))).toEqual(before);
    const halfway = (await new JsonFileStore(dir).list('audit')).length;
    expect(halfway).toBeGreaterThan(RUNS * (ENTRIES + 1)); // copies landed, originals still there

    // Act 2: killed again, after the first run was marked keyed.
    const second = await runCli(['store', 'migrate', '--json'], {
      ...env,
      HANDOFF_CRASH_AT: 'migrate:run-marked',
    });
    expect(second.signal).toBe('SIGKILL');
    expect(await auditByRun(new JsonFileStore(dir))).toEqual(before);
    const marked = RunSchema.parse(await new JsonFileStore(dir).get('runs', 'run_legacy_0'));
    expect(marked.keyed).toBe(true);

    // Act 3: the run that finishes it.
    const third = await runCli(['store', 'migrate', '--json'], env);
    expect(third.code).toBe(0);
    const report = JSON.parse(third.stdout) as {
      keys: { workspace: string; runs: number; already_done: boolean }[];
    };
    expect(report.keys).toEqual([
      expect.objectContaining({ workspace: 'default', already_done: false, runs: RUNS - 1 }),
    ]);

    // Assess: every entry carries its run's key, none lost or doubled; every run keyed, its older questions noted.
    const store = new JsonFileStore(dir);
    const audit = await store.list('audit');
    expect(audit).toHaveLength(RUNS * (ENTRIES + 1));
    expect(audit.every((e) => isKeyedAuditId(e.id, String(e.run_id)))).toBe(true);
    expect(await auditByRun(store)).toEqual(before);
    const spy = spyOnStore(store);
    for (let i = 0; i < RUNS; i++) {
      const run = RunSchema.parse(await store.get('runs', `run_legacy_${i}`));
      expect(run.keyed).toBe(true);
      expect(run.legacy_decision_ids).toHaveLength(2);
      expect(await decisionsOfRun(spy.store, run)).toHaveLength(2);
      expect(await auditOfRun(spy.store, run)).toHaveLength(ENTRIES + 1);
    }
    expect(spy.fullReads).toEqual([]); // read by key from now on

    // Act 4: once more: it reads its marker and writes nothing.
    const files = await filesOf(dir);
    expect(Object.keys(files).filter((f) => f.startsWith('audit/'))).toHaveLength(RUNS * (ENTRIES + 1));
    const fourth = await runCli(['store', 'migrate', '--json'], env);
    expect(fourth.code).toBe(0);
    expect((JSON.parse(fourth.stdout) as { keys: unknown[] }).keys).toEqual([
      expect.objectContaining({ workspace: 'default', already_done: true, runs: 0, audit_moved: 0 }),
    ]);
    expect(await filesOf(dir)).toEqual(files);
  });

  it('a migrated entry lands where crash recovery looks for it', () => {
    const claim = { id: 'inbox|<m1@x>', run_id: 'run_legacy_0' };
    expect(migratedAuditId(legacyAuditIdOf(claim), claim.run_id)).toBe(auditIdOf(claim));
  });
});

describe('handoff store migrate: the keys step on DynamoDB (dynalite)', () => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>>;
  beforeAll(async () => {
    dynalite = await startDynalite();
  });
  afterAll(() => dynalite.stop());

  it('rewrites once; a second run reads only its marker', async () => {
    const client = dynaliteClient(dynalite.endpoint);
    try {
      const table = `handoff-keys-${randomUUID()}`;
      await ensureTable(client, table);
      const store = new DynamoDbStore(createDocumentClient(client), table);
      await seedLegacy(store);
      const before = await auditByRun(store);

      const report = await migrateKeys(store);
      expect(report).toMatchObject({ already_done: false, runs: RUNS, audit_moved: RUNS * (ENTRIES + 1) });
      expect(report.legacy_decisions).toBe(RUNS * 2);
      expect(await auditByRun(store)).toEqual(before);
      const audit = await store.list('audit');
      expect(audit.every((e) => isKeyedAuditId(e.id, String(e.run_id)))).toBe(true);

      const spy = spyOnStore(store);
      expect(await migrateKeys(spy.store)).toMatchObject({ already_done: true, runs: 0, reindexed: 0 });
      expect(spy.fullReads).toEqual([]);
      expect(await store.list('audit')).toHaveLength(RUNS * (ENTRIES + 1));
    } finally {
      client.destroy();
    }
  });

  it('on AWS the sweeper runs the step until its marker exists', async () => {
    const client = dynaliteClient(dynalite.endpoint);
    const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-sweep-keys-'));
    try {
      const table = `handoff-sweep-${randomUUID()}`;
      await ensureTable(client, table);
      const store = new DynamoDbStore(createDocumentClient(client), table);
      await seedLegacy(store);
      const env = loadEnv({
        USE_DYNAMODB: 'true',
        DYNAMODB_ENDPOINT: dynalite.endpoint,
        AWS_REGION: 'us-east-1',
        HANDOFF_TABLE: table,
        HANDOFF_STATE_DIR: stateDir,
      });
      expect(await keysMigrated(store)).toBe(false);
      await sweepRuns(await openPlatform(env));
      expect(await keysMigrated(store)).toBe(true);
      const run = RunSchema.parse(await store.get('runs', 'run_legacy_1'));
      expect(run.keyed).toBe(true);
      expect(await auditOfRun(store, run)).toHaveLength(ENTRIES + 1);
    } finally {
      client.destroy();
      await fs.rm(stateDir, { recursive: true, force: true });
    }
  });
});

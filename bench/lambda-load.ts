/**
 * The load simulation of `npm run bench:lambda`: W workspaces × F workflows × N items through
 * the real engine (startRun over a Maildir each, the offline model; with `+answers` every
 * question answered through `decide`, which resumes the run), each workspace on its own DynamoDbStore of one
 * table on dynalite, all over one DynamoDB client as in a Lambda container. Every write request
 * the client sends is taken apart into the items it writes, counted by partition key (the
 * table's, and the indexes'). Reports the hottest key's share of the item writes (target
 * ≤ 5%), next to what the layout before workspaces (`pk` = collection) gives the same writes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { loadEnv } from '../shared/config/env.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import { allowedActions, decide } from '../shared/runs/decide.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import type { Decision } from '../shared/records/runs.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../shared/store/dynamodb-store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { dynaliteClient, startDynalite } from '../test/support/dynalite-server.ts';
import { generateInbox } from './generate-mail.ts';
import { TimedOfflineModel, round, silentNotifier } from './instruments.ts';
import { countWrites, type WriteCounts } from './partition-writes.ts';

/**
 * How much load: workspaces × workflows per workspace × items per run (one run per workflow),
 * and whether every question is answered (each answer re-reads the workspace's decisions, so
 * answering makes the simulation several times slower) or the runs stay paused.
 */
export interface LoadShape {
  workspaces: number;
  workflows: number;
  items: number;
  answer: boolean;
}

/** The default shape, issue 15's: 20 × 5 × 200, the runs left paused on their questions. */
export const DEFAULT_LOAD = '20x5x200';

/** The target for the hottest partition key's share of item writes. */
export const HOTTEST_SHARE_TARGET = 0.05;

/** One key and its writes. */
export interface KeyWrites {
  key: string;
  writes: number;
  /** Of every item write counted with it. */
  share: number;
}

export interface LoadResult {
  /** When the simulation finished (it may be merged into a report measured at another time). */
  measured_at: string;
  shape: LoadShape;
  runs: number;
  items: number;
  questions: number;
  /** Runs that ended other than completed (0 when answering; the paused ones otherwise). */
  runs_not_completed: number;
  wall_s: number;
  write_requests: number;
  /** Items written (a batch or a transaction counts each of its items). */
  item_writes: number;
  item_writes_per_item: number;
  partition_keys: number;
  /** The five table partition keys written most. */
  hottest: KeyWrites[];
  /** The index partition key written most (gsi1pk, gsi2pk). */
  hottest_index: KeyWrites | null;
  /** The same writes keyed as before workspaces (`pk` = collection): the hottest. */
  hottest_before: KeyWrites;
  target: number;
  pass: boolean;
}

/** "20x5x200" (runs left paused) or "20x5x200+answers" (every question answered) → a LoadShape. */
export function parseShape(text: string): LoadShape {
  const match = /^(\d+)x(\d+)x(\d+)(\+answers)?$/.exec(text);
  if (!match)
    throw new Error(
      `--load must be WORKSPACESxWORKFLOWSxITEMS, optionally +answers (e.g. 20x5x200+answers), not '${text}'.`,
    );
  const [workspaces, workflows, items] = match.slice(1, 4).map(Number) as [number, number, number];
  return { workspaces, workflows, items, answer: match[4] !== undefined };
}

/** Runs the simulation: every workspace's workflows in turn, each run answered and resumed. */
export async function runLoad(shape: LoadShape): Promise<LoadResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-load-'));
  const dynalite = await startDynalite();
  const client = dynaliteClient(dynalite.endpoint);
  const table = 'handoff-load';
  const counts: WriteCounts = countWrites(client);
  const result = { runs: 0, items: 0, questions: 0, runs_not_completed: 0 };
  const started = performance.now();
  try {
    await ensureTable(client, table);
    const docs = createDocumentClient(client);
    for (let w = 0; w < shape.workspaces; w++) {
      const workspace = `team-${String(w + 1).padStart(2, '0')}`;
      const store = new DynamoDbStore(docs, table, { workspace });
      const env = loadEnv({ HANDOFF_STATE_DIR: path.join(root, workspace), HANDOFF_MODEL_PROVIDER: 'local' });
      const deps = engineFromEnv(env, {
        store,
        models: async () => new TimedOfflineModel(),
        notifier: silentNotifier,
        emit: () => {},
      });
      for (let f = 0; f < shape.workflows; f++) {
        const id = `workflow-${f + 1}`;
        const maildir = path.join(root, workspace, id);
        await writeMaildir(maildir, generateInbox(shape.items, w * 100 + f).messages);
        const yaml = demoWorkflowYaml(maildir).replace('id: inbox-triage', `id: ${id}`);
        await saveWorkflow(store, parseWorkflow(yaml, `${id}.yaml`));
        const run = await startRun(deps, id, { kind: 'manual', detail: null });
        let status: string = run.status;
        const pending = (await listPending(store)).filter((d) => d.run_id === run.id);
        if (shape.answer)
          for (const decision of pending)
            status = (await decide(deps, decision.id, answerFor(decision), null)).run_status;
        result.runs += 1;
        result.items += shape.items;
        result.questions += pending.length;
        if (status !== 'completed') result.runs_not_completed += 1;
      }
      process.stderr.write(`  load: ${workspace} done (${result.runs} runs)\n`);
    }
  } finally {
    await client.send(new DeleteTableCommand({ TableName: table })).catch(() => {});
    client.destroy();
    await dynalite.stop();
    await rm(root, { recursive: true, force: true });
  }
  const total = counts.itemWrites;
  const ranked = (tally: Map<string, number>, of: number): KeyWrites[] =>
    [...tally.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([key, writes]) => ({ key, writes, share: round(writes / of, 4) }));
  const hottest = ranked(counts.byKey, total);
  const indexTotal = [...counts.byIndexKey.values()].reduce((s, n) => s + n, 0);
  const before = new Map<string, number>();
  for (const [key, writes] of counts.byKey) {
    const collection = key.split('#')[1] ?? key;
    before.set(collection, (before.get(collection) ?? 0) + writes);
  }
  return {
    measured_at: new Date().toISOString(),
    shape,
    ...result,
    wall_s: round((performance.now() - started) / 1000, 1),
    write_requests: counts.requests,
    item_writes: total,
    item_writes_per_item: round(total / Math.max(result.items, 1), 2),
    partition_keys: counts.byKey.size,
    hottest: hottest.slice(0, 5),
    hottest_index: ranked(counts.byIndexKey, indexTotal)[0] ?? null,
    hottest_before: ranked(before, total)[0]!,
    target: HOTTEST_SHARE_TARGET,
    pass: (hottest[0]?.share ?? 0) <= HOTTEST_SHARE_TARGET,
  };
}

/** The bench's answer: the agent's suggestion when it is offered, else skip (as bench/resume.ts). */
function answerFor(decision: Decision): string {
  const allowed = allowedActions(decision).filter((a) => a !== 'approve_suggested');
  return allowed.includes(decision.suggested_action) ? decision.suggested_action : 'skip';
}

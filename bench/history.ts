/**
 * Whether anything costs more after a year of history: workspaces seeded with 1,000, 10,000
 * and 100,000 settled items (runs of 100, their outcomes, audit entries and answered
 * questions, and 5,000 rules), on the JSON-file store and on DynamoDB Local, and for each the
 * same operations, the sizes interleaved in one process: a 10-item run, its run page,
 * Activity, one answer, `audit --run`, a digest report, Memory's first page and `stats`.
 * Milliseconds (median, min–max of the repeats; a run's and an answer's model time left out)
 * and, on DynamoDB, the requests each operation sends (reads, writes, items read), with a
 * run's fixed requests before its first item.
 *
 *   npm run bench:history                                   # 1000,10000,100000 on both stores, 5 repeats
 *   npm run bench:history -- --sizes 1000,10000 --stores json --repeats 5
 *
 * Writes bench/results/history.json (--out FILE elsewhere).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { listAudit } from '../shared/audit/audit.ts';
import { recordRunReport } from '../shared/artifacts/report.ts';
import { loadEnv } from '../shared/config/env.ts';
import { decide } from '../shared/runs/decide.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import { getRun } from '../shared/runs/run-repository.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { readStats } from '../shared/runs/read-stats.ts';
import { backfillRunTotals } from '../shared/runs/run-totals.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import {
  createDocumentClient,
  DynamoDbStore,
  ensureTable,
  newDynamoClient,
} from '../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import type { Store } from '../shared/store/store.ts';
import { createApp } from '../shared/web/app.ts';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.ts';
import { benchEngine, saveTriageWorkflow, WORKFLOW_ID } from './engine-workspace.ts';
import { generateInbox } from './generate-mail.ts';
import { seedHistory, type Seeded } from './history-seed.ts';
import { RequestCounter, type RequestTally } from './history-requests.ts';
import { answerFor } from './resume.ts';
import { benchFlags, modelTotals, refuseFlag, round, wholeNumberFlag } from './instruments.ts';

const OPERATIONS = [
  'run_10',
  'run_page',
  'activity',
  'answer',
  'audit_run',
  'digest',
  'memory',
  'stats',
] as const;
type Operation = (typeof OPERATIONS)[number];
type StoreKind = 'json' | 'dynamodb';

interface Workspace {
  kind: StoreKind;
  size: number;
  root: string;
  store: Store;
  counter: RequestCounter | null;
  seeded: Seeded;
  deps: ReturnType<typeof benchEngine>['deps'];
  models: ReturnType<typeof benchEngine>['models'];
  app: ReturnType<typeof createApp>;
}

interface Sample {
  ms: Partial<Record<Operation, number>>;
  requests: Partial<Record<Operation, RequestTally>>;
  fixed: RequestTally | null;
}

async function openWorkspace(
  kind: StoreKind,
  size: number,
  rules: number,
  root: string,
  endpoint: string | null,
): Promise<Workspace> {
  const dir = path.join(root, `${kind}-${size}`);
  let store: Store;
  let counter: RequestCounter | null = null;
  if (kind === 'dynamodb') {
    const client = newDynamoClient({ AWS_REGION: 'us-east-1', DYNAMODB_ENDPOINT: endpoint! });
    const table = `handoff-history-${size}-${randomUUID().slice(0, 8)}`;
    await ensureTable(client, table);
    counter = new RequestCounter(client);
    store = new DynamoDbStore(createDocumentClient(client), table);
  } else store = new JsonFileStore(path.join(dir, 'state'));
  const { deps, models } = benchEngine(store, path.join(dir, 'state'));
  await saveTriageWorkflow(store, path.join(dir, 'Maildir-0'));
  const started = performance.now();
  const seeded = await seedHistory(store, WORKFLOW_ID, size, rules, (done, total) => {
    if (done % 200 === 0 || done === total)
      process.stderr.write(`\r  ${kind} ${size}: ${done}/${total} commits`);
  });
  await backfillRunTotals(store); // `handoff store migrate`'s step: the seeded runs' running totals
  process.stderr.write(` (${round((performance.now() - started) / 1000, 1)} s)\n`);
  const app = createApp({
    engine: deps,
    env: loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') }),
    linkKey: { get: async () => Buffer.alloc(32, 7) },
  });
  return { kind, size, root: dir, store, counter, seeded, deps, models, app };
}

/** Times `act` (less the model time it spent) and counts its requests. */
async function measure(w: Workspace, sample: Sample, op: Operation, act: () => Promise<unknown>) {
  w.counter?.reset();
  const model = modelTotals(w.models).modelMs;
  const started = performance.now();
  await act();
  sample.ms[op] = performance.now() - started - (modelTotals(w.models).modelMs - model);
  if (w.counter) sample.requests[op] = w.counter.tally();
}

async function page(w: Workspace, url: string): Promise<void> {
  const res = await w.app.request(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  await res.text();
}

/** Every operation once in `w`, over new mail (seed `seed`). */
async function sample(w: Workspace, seed: number): Promise<Sample> {
  const s: Sample = { ms: {}, requests: {}, fixed: null };
  const maildir = path.join(w.root, `Maildir-${seed}`);
  await writeMaildir(maildir, generateInbox(10, seed).messages);
  await saveTriageWorkflow(w.store, maildir);
  let runId = '';
  await measure(w, s, 'run_10', async () => {
    const run = await startRun(w.deps, WORKFLOW_ID, { kind: 'manual', detail: null });
    if (run.status === 'failed') throw new Error(`the run failed: ${run.error}`);
    runId = run.id;
  });
  s.fixed = w.counter?.beforeFirstItem() ?? null;
  await measure(w, s, 'run_page', () => page(w, `/runs/${encodeURIComponent(runId)}`));
  await measure(w, s, 'activity', () => page(w, '/activity'));
  const [question, ...rest] = (await listPending(w.store)).filter((d) => d.run_id === runId);
  if (question) await measure(w, s, 'answer', () => decide(w.deps, question.id, answerFor(question), null));
  // The run's other questions answered too (not timed), so every repeat starts from the same
  // waiting state: only the settled history grows between repeats, never what waits.
  for (const d of rest) await decide(w.deps, d.id, answerFor(d), null);
  await measure(w, s, 'audit_run', () => listAudit(w.store, { runId: w.seeded.sampleRunId }));
  const seededRun = await getRun(w.store, w.seeded.sampleRunId);
  await measure(w, s, 'digest', () =>
    recordRunReport(w.store, seededRun, { name: 'Digest', digest: true }, 'Done.'),
  );
  await measure(w, s, 'memory', () => page(w, '/memory'));
  await measure(w, s, 'stats', () => readStats(w.store));
  return s;
}

const USAGE = `npm run bench:history -- [options]
  --sizes 1000,10000,100000   settled items in each workspace (runs of 100; at least 101 runs)
  --rules 5000                learned rules in each workspace
  --stores json,dynamodb      the stores (dynamodb: DynamoDB Local, in a private network namespace)
  --repeats 5                 samples of every operation per workspace, the sizes interleaved
  --out FILE                  where the figures go (bench/results/history.json)`;

function spread(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return { median: round(median, 2), min: round(sorted[0] ?? 0, 2), max: round(sorted.at(-1) ?? 0, 2) };
}

/** The median tally (each count's median: the counts are the same at every repeat when nothing grows). */
function medianTally(tallies: RequestTally[]): RequestTally | null {
  if (tallies.length === 0) return null;
  const med = (k: keyof RequestTally) => spread(tallies.map((t) => t[k])).median;
  return { reads: med('reads'), writes: med('writes'), items_read: med('items_read') };
}

async function main(): Promise<void> {
  const values = benchFlags(
    'bench:history',
    () =>
      parseArgs({
        options: {
          sizes: { type: 'string', default: '1000,10000,100000' },
          rules: { type: 'string', default: '5000' },
          stores: { type: 'string', default: 'json,dynamodb' },
          repeats: { type: 'string', default: '5' },
          out: { type: 'string', default: 'bench/results/history.json' },
          help: { type: 'boolean', default: false },
        },
      }).values,
  );
  if (values.help) return console.log(USAGE);
  const sizes = values.sizes.split(',').map((v) => wholeNumberFlag('bench:history', 'sizes', v.trim()));
  const rules =
    wholeNumberFlag('bench:history', 'rules', values.rules === '0' ? '1' : values.rules) &&
    Number(values.rules);
  const repeats = wholeNumberFlag('bench:history', 'repeats', values.repeats);
  const stores = values.stores.split(',').map((s) => s.trim());
  for (const s of stores)
    if (s !== 'json' && s !== 'dynamodb')
      refuseFlag('bench:history', `--stores takes json and dynamodb, got "${s}"`);
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-history-'));
  const dynamo = stores.includes('dynamodb') ? await startDynamoDbLocal() : null;
  try {
    const workspaces: Workspace[] = [];
    for (const kind of stores as StoreKind[])
      for (const size of sizes)
        workspaces.push(await openWorkspace(kind, size, rules, root, dynamo?.endpoint ?? null));
    for (const w of workspaces) await sample(w, 1); // warm-up (and the indexes' first reads), not counted
    const samples = new Map<Workspace, Sample[]>(workspaces.map((w) => [w, []]));
    const save = async (done: number): Promise<Row[]> => {
      const rows = workspaces.map((w) => {
        const s = samples.get(w)!;
        return {
          store: w.kind,
          size: w.size,
          seeded: w.seeded.counts,
          ms: Object.fromEntries(
            OPERATIONS.map((op) => [
              op,
              spread(s.flatMap((x) => (x.ms[op] === undefined ? [] : [x.ms[op]!]))),
            ]),
          ),
          requests:
            w.kind === 'dynamodb'
              ? Object.fromEntries(
                  OPERATIONS.map((op) => [
                    op,
                    medianTally(s.flatMap((x) => (x.requests[op] ? [x.requests[op]!] : []))),
                  ]),
                )
              : null,
          run_fixed_requests:
            w.kind === 'dynamodb' ? medianTally(s.flatMap((x) => (x.fixed ? [x.fixed] : []))) : null,
        };
      });
      const result = {
        sizes,
        rules,
        repeats: done,
        stores,
        load_average: os.loadavg().map((l) => round(l, 2)),
        rows,
      };
      await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
      return rows;
    };
    for (let i = 0; i < repeats; i++) {
      const order = i % 2 === 0 ? workspaces : [...workspaces].reverse(); // sizes interleaved, both ways
      for (const w of order) samples.get(w)!.push(await sample(w, 100 + i));
      await save(i + 1); // after every round: a bench stopped early keeps what it measured
    }
    printTables(await save(repeats), repeats);
  } finally {
    await dynamo?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

type Row = {
  store: StoreKind;
  size: number;
  ms: Record<string, { median: number; min: number; max: number }>;
  requests: Record<string, RequestTally | null> | null;
  run_fixed_requests: RequestTally | null;
};

function printTables(rows: Row[], repeats: number): void {
  const fmt = (x: { median: number; min: number; max: number } | undefined) =>
    x ? `${x.median} (${x.min}–${x.max})` : '–';
  console.log(`ms, median (min–max) of ${repeats} repeats, sizes interleaved`);
  console.log(`| store | settled items | ${OPERATIONS.join(' | ')} |`);
  console.log(`| --- | --- | ${OPERATIONS.map(() => '---').join(' | ')} |`);
  for (const r of rows)
    console.log(`| ${r.store} | ${r.size} | ${OPERATIONS.map((op) => fmt(r.ms[op])).join(' | ')} |`);
  const dynamo = rows.filter((r) => r.requests);
  if (dynamo.length === 0) return;
  console.log('\nDynamoDB requests per operation: reads / writes / items read (median)');
  console.log(`| settled items | ${OPERATIONS.join(' | ')} | run before its first item |`);
  console.log(`| --- | ${OPERATIONS.map(() => '---').join(' | ')} | --- |`);
  const t = (x: RequestTally | null | undefined) => (x ? `${x.reads} / ${x.writes} / ${x.items_read}` : '–');
  for (const r of dynamo)
    console.log(
      `| ${r.size} | ${OPERATIONS.map((op) => t(r.requests![op])).join(' | ')} | ${t(r.run_fixed_requests)} |`,
    );
}

await main();

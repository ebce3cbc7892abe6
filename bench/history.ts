/**
 * Whether a run costs more in a workspace with a long history: the same small runs, side by
 * side, in a young workspace (only the workflow) and in one holding the settled records of
 * --history items (answered questions, acted items, their audit entries, finished runs; cloned
 * from a real 1,000-item run whose questions were all answered). Interleaved in one process,
 * each repeat with new mail: the run (platform time), the first answer of its questions, the
 * pending listing and the housekeeping sweep every CLI command makes first. JSON-file store.
 *
 *   npm run bench:history                          # 20,000 settled items, runs of 10, 9 repeats
 *   npm run bench:history -- --history 5000 --size 100 --repeats 5
 *
 * Writes bench/results/history.json (--out FILE elsewhere).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listPending } from '../shared/runs/decision-repository.ts';
import { decide } from '../shared/runs/decide.ts';
import { housekeeping } from '../shared/runs/housekeeping.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { JsonFileStore, encodeId } from '../shared/store/json-file-store.ts';
import { isIndexed, type Collection, type JsonRecord } from '../shared/store/store.ts';
import { DEFAULT_SEED, generateInbox } from './generate-mail.ts';
import { benchEngine, saveTriageWorkflow, WORKFLOW_ID } from './engine-workspace.ts';
import { benchFlags, modelTotals, round, wholeNumberFlag } from './instruments.ts';
import { answerFor } from './resume.ts';

/** What a workspace's history is made of: the records every handled item and answer leaves. */
const HISTORY: readonly Collection[] = [
  'decisions',
  'outcomes',
  'audit',
  'runs',
  'interrupts',
  'tickets',
  'artifacts',
];

interface Workspace {
  name: 'young' | 'old';
  root: string;
}

interface Sample {
  run_ms: number;
  answer_ms: number | null;
  pending_ms: number;
  housekeeping_ms: number;
}

const engineAt = (stateDir: string) => benchEngine(new JsonFileStore(stateDir), stateDir);

/** A run of `n` items in `scratch`, every question answered and the run resumed: settled records to clone. */
async function settledRun(scratch: string, n: number): Promise<void> {
  const maildir = path.join(scratch, 'Maildir');
  await writeMaildir(maildir, generateInbox(n, DEFAULT_SEED).messages);
  const { deps } = engineAt(path.join(scratch, 'state'));
  await saveTriageWorkflow(deps.store, maildir);
  const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: null });
  for (const d of (await listPending(deps.store)).filter((p) => p.run_id === run.id))
    await decide(deps, d.id, answerFor(d), null);
}

/**
 * Copies the settled records of `scratch` into `stateDir` until it holds `items` settled
 * outcomes, each copy under new ids; returns how many records of each collection it wrote.
 */
async function cloneHistory(
  scratch: string,
  stateDir: string,
  items: number,
): Promise<Record<string, number>> {
  const source: Partial<Record<Collection, JsonRecord[]>> = {};
  for (const collection of HISTORY) {
    const dir = path.join(scratch, 'state', collection);
    const names = await readdir(dir).catch(() => [] as string[]);
    const records = await Promise.all(
      names
        .filter((n) => n.endsWith('.json'))
        .map(async (n) => JSON.parse(await readFile(path.join(dir, n), 'utf8'))),
    );
    // Only what is over: a record still moving would be in the status index, not history.
    source[collection] = (records as JsonRecord[]).filter((r) => !isIndexed(collection, r.status));
  }
  const copies = Math.ceil(items / Math.max(1, source.outcomes?.length ?? 1));
  const written: Record<string, number> = {};
  for (const collection of HISTORY) {
    const dir = path.join(stateDir, collection);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const files: [string, JsonRecord][] = [];
    for (let k = 0; k < copies; k += 1)
      for (const r of source[collection] ?? []) {
        const id = `${r.id}~h${k}`;
        files.push([path.join(dir, `${encodeId(id)}.json`), { ...r, id }]);
      }
    for (let i = 0; i < files.length; i += 256)
      await Promise.all(
        files.slice(i, i + 256).map(([f, r]) => writeFile(f, `${JSON.stringify(r, null, 2)}\n`)),
      );
    written[collection] = files.length;
  }
  return written;
}

/** One small run in `w` over new mail, then its first answer, the pending listing and a sweep, timed. */
async function sample(w: Workspace, size: number, seed: number): Promise<Sample> {
  const maildir = path.join(w.root, `Maildir-${seed}`);
  await writeMaildir(maildir, generateInbox(size, seed).messages);
  const { deps, models } = engineAt(path.join(w.root, 'state'));
  await saveTriageWorkflow(deps.store, maildir);
  let started = performance.now();
  const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: null });
  const run_ms = performance.now() - started - modelTotals(models).modelMs;
  if (run.status === 'failed') throw new Error(`the run failed: ${run.error}`);

  started = performance.now();
  const pending = await listPending(deps.store);
  const pending_ms = performance.now() - started;

  let answer_ms: number | null = null;
  const first = pending.find((d) => d.run_id === run.id);
  if (first) {
    const modelBefore = modelTotals(models).modelMs;
    started = performance.now();
    await decide(deps, first.id, answerFor(first), null);
    answer_ms = performance.now() - started - (modelTotals(models).modelMs - modelBefore);
  }

  started = performance.now();
  await housekeeping(deps);
  const housekeeping_ms = performance.now() - started;
  return { run_ms, answer_ms, pending_ms, housekeeping_ms };
}

const USAGE = `npm run bench:history -- [options]
  --history 20000   settled items in the old workspace (cloned from a run of up to 1,000, all answered)
  --size 10         items per timed run
  --repeats 9       timed runs in each workspace, interleaved
  --out FILE        where the figures go (bench/results/history.json)`;

const wholeNumber = (flag: string, value: string) => wholeNumberFlag('bench:history', flag, value);

function summary(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return { median: round(median, 2), min: round(sorted[0] ?? 0, 2), max: round(sorted.at(-1) ?? 0, 2) };
}

async function main(): Promise<void> {
  const values = benchFlags(
    'bench:history',
    () =>
      parseArgs({
        options: {
          history: { type: 'string', default: '20000' },
          size: { type: 'string', default: '10' },
          repeats: { type: 'string', default: '9' },
          out: { type: 'string', default: 'bench/results/history.json' },
          help: { type: 'boolean', default: false },
        },
      }).values,
  );
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const history = wholeNumber('history', values.history);
  const size = wholeNumber('size', values.size);
  const repeats = wholeNumber('repeats', values.repeats);
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-history-'));
  try {
    const young: Workspace = { name: 'young', root: path.join(root, 'young') };
    const old: Workspace = { name: 'old', root: path.join(root, 'old') };
    const scratch = path.join(root, 'scratch');
    const built = Math.min(history, 1_000);
    process.stderr.write(`building the history (a ${built}-item run, every question answered)...\n`);
    await settledRun(scratch, built);
    // Both start with the workflow saved (the store's first write), then the old one gets its history.
    for (const w of [young, old]) await sample(w, size, 1); // also warms this process up
    const written = await cloneHistory(scratch, path.join(old.root, 'state'), history);
    process.stderr.write(`history: ${JSON.stringify(written)}\n`);
    // Records written behind the store's back are indexed by the first read that needs them:
    // once, as after an upgrade; that run is not timed.
    const rebuilt = performance.now();
    await listPending(new JsonFileStore(path.join(old.root, 'state')));
    const first_read_ms = round(performance.now() - rebuilt, 1);
    for (const w of [young, old]) await sample(w, size, 2);
    const samples: Record<Workspace['name'], Sample[]> = { young: [], old: [] };
    for (let i = 0; i < repeats; i += 1)
      for (const w of i % 2 === 0 ? [young, old] : [old, young])
        samples[w.name].push(await sample(w, size, 100 + i));

    const rows = (['young', 'old'] as const).map((name) => {
      const s = samples[name];
      return {
        workspace: name,
        settled_outcomes: name === 'old' ? written.outcomes : 0,
        settled_decisions: name === 'old' ? written.decisions : 0,
        run_ms: summary(s.map((x) => x.run_ms)),
        answer_ms: summary(s.flatMap((x) => (x.answer_ms === null ? [] : [x.answer_ms]))),
        pending_ms: summary(s.map((x) => x.pending_ms)),
        housekeeping_ms: summary(s.map((x) => x.housekeeping_ms)),
      };
    });
    const fmt = (x: { median: number; min: number; max: number }) => `${x.median} (${x.min}–${x.max})`;
    console.log(`runs of ${size} items, ${repeats} repeats each, interleaved; ms, median (min–max)`);
    console.log(`(the first read after the history was copied in indexed it: ${first_read_ms} ms, once)`);
    console.log(
      '| workspace | settled outcomes / decisions | run (platform) | first answer | pending list | housekeeping |',
    );
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const r of rows)
      console.log(
        `| ${r.workspace} | ${r.settled_outcomes} / ${r.settled_decisions} | ${fmt(r.run_ms)} | ${fmt(r.answer_ms)} | ${fmt(r.pending_ms)} | ${fmt(r.housekeeping_ms)} |`,
      );
    const result = {
      size,
      repeats,
      history,
      first_read_after_copy_ms: first_read_ms,
      load_average: os.loadavg().map((l) => round(l, 2)),
      rows,
    };
    await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();

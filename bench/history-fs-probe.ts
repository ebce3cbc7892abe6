/**
 * Counts the file-system calls of the bench's reads on the JSON store (the run page of a fresh
 * 10-item run, Activity, Memory, `stats`), in workspaces seeded as `bench:history` seeds them with
 * each of `sizes` settled items: readdir calls and the entries they returned (per folder,
 * relative to the state directory), files read, stats. A folder whose listing grows with the
 * size is a read that is not keyed.
 *
 *   npx tsx bench/history-fs-probe.ts 1000,20000
 */
import fsSync, { promises as fsp } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadEnv } from '../shared/config/env.ts';
import { readStats } from '../shared/runs/read-stats.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { backfillRunTotals } from '../shared/runs/run-totals.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import { createApp } from '../shared/web/app.ts';
import { benchEngine, saveTriageWorkflow, WORKFLOW_ID } from './engine-workspace.ts';
import { generateInbox } from './generate-mail.ts';
import { seedHistory } from './history-seed.ts';

interface Tally {
  readdirs: Map<string, number>;
  filesRead: number;
  stats: number;
}
let tally: Tally | null = null;
let stateRoot = '';
const rel = (p: unknown) => path.relative(stateRoot, String(p)).replace(/[0-9a-f]{8}(?=\/|$)/g, '<key>');

const asyncReaddir = fsp.readdir.bind(fsp);
(fsp as { readdir: unknown }).readdir = async (p: fsSync.PathLike, ...rest: unknown[]) => {
  const out = (await (asyncReaddir as (...a: unknown[]) => Promise<string[]>)(p, ...rest)) as string[];
  if (tally) tally.readdirs.set(rel(p), (tally.readdirs.get(rel(p)) ?? 0) + out.length);
  return out;
};
const syncReaddir = fsSync.readdirSync;
(fsSync as { readdirSync: unknown }).readdirSync = (p: fsSync.PathLike, ...rest: unknown[]) => {
  const out = (syncReaddir as (...a: unknown[]) => string[])(p, ...rest);
  if (tally) tally.readdirs.set(`sync ${rel(p)}`, (tally.readdirs.get(`sync ${rel(p)}`) ?? 0) + out.length);
  return out;
};
const readSync = fsSync.readFileSync;
(fsSync as { readFileSync: unknown }).readFileSync = (...a: unknown[]) => {
  if (tally) tally.filesRead++;
  return (readSync as (...x: unknown[]) => unknown)(...a);
};
const asyncRead = fsp.readFile.bind(fsp);
(fsp as { readFile: unknown }).readFile = (...a: unknown[]) => {
  if (tally) tally.filesRead++;
  return (asyncRead as (...x: unknown[]) => unknown)(...a);
};
const statSync = fsSync.statSync;
(fsSync as { statSync: unknown }).statSync = (...a: unknown[]) => {
  if (tally) tally.stats++;
  return (statSync as (...x: unknown[]) => unknown)(...a);
};
syncBuiltinESMExports();

const fresh = (): Tally => ({ readdirs: new Map(), filesRead: 0, stats: 0 });

async function probe(size: number, root: string): Promise<Map<string, Tally>> {
  const dir = path.join(root, `json-${size}`);
  stateRoot = path.join(dir, 'state');
  const store = new JsonFileStore(stateRoot);
  const { deps } = benchEngine(store, stateRoot);
  await saveTriageWorkflow(store, path.join(dir, 'Maildir-0'));
  await seedHistory(store, WORKFLOW_ID, size, 5000);
  await backfillRunTotals(store);
  const app = createApp({
    engine: deps,
    env: loadEnv({ HANDOFF_STATE_DIR: stateRoot }),
    linkKey: { get: async () => Buffer.alloc(32, 7) },
  });
  const counted = new Map<string, Tally>();
  const count = async (op: string, act: () => Promise<unknown>) => {
    tally = fresh();
    await act();
    counted.set(op, tally);
    tally = null;
  };
  const page = async (url: string) => {
    const res = await app.request(url);
    await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  };
  for (const seed of [1, 2]) {
    // The second round is counted (the first warms the indexes, as the bench's warm-up does).
    const maildir = path.join(dir, `Maildir-${seed}`);
    await writeMaildir(maildir, generateInbox(10, seed).messages);
    await saveTriageWorkflow(store, maildir);
    const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: null });
    await count('run_page', () => page(`/runs/${encodeURIComponent(run.id)}`));
    await count('activity', () => page('/activity'));
    await count('memory', () => page('/memory'));
    await count('stats', () => readStats(store));
  }
  return counted;
}

const sizes = (process.argv[2] ?? '1000,20000').split(',').map(Number);
const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-fs-probe-'));
try {
  for (const size of sizes)
    for (const [op, t] of await probe(size, root)) {
      const entries = [...t.readdirs.values()].reduce((a, b) => a + b, 0);
      console.log(
        `size ${size} ${op}: ${t.readdirs.size} folders listed, ${entries} entries, ${t.filesRead} files read, ${t.stats} stats`,
      );
      for (const [d, n] of [...t.readdirs].sort()) console.log(`  ${n}\t${d}`);
    }
} finally {
  await rm(root, { recursive: true, force: true });
}

/**
 * Engine benchmark: one inbox-triage run through the real engine (startRun) over N seeded
 * messages, with the offline model, a fresh JSON-file store, a silent notifier and a no-op
 * emit, read from a Maildir or from a local Dovecot over IMAP (the same messages, commands
 * counted at a proxy). Each run is a fresh child process so memory peaks stay separate; the
 * variants run interleaved, --repeats times, and the table shows each one's median run.
 *
 *   npm run bench                         # Maildir 10, 100, 1000; IMAP 100, 1000; 3 repeats
 *   npm run bench -- --sizes 10,100 --imap-sizes 100 --repeats 1
 *   npm run bench -- --profile            # also --cpu-prof each child and summarise the hot frames
 *   tsx bench/engine.ts --child 100 --source imap --json  # one run, in this process
 *
 * Prints a markdown table and writes bench/results/engine.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Message, ModelStreamEvent, StreamOptions } from '@strands-agents/sdk';
import { loadEnv } from '../shared/config/env.ts';
import { OfflineModel } from '../shared/models/offline/offline-model.ts';
import type { ModelFactory } from '../shared/models/provider.ts';
import type { Notifier } from '../shared/notify/notifier.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { DEFAULT_PAGE_SIZE, engineFromEnv } from '../shared/runs/wire.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import type { Collection, JsonRecord, Store, Versioned } from '../shared/store/store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { summariseProfile, type ProfileSummary } from './cpu-profile.ts';
import { DEFAULT_SEED, generateInbox, type MailKind } from './generate-mail.ts';
import { startImapSource, type ImapBench } from './imap-bench.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const PROJECT_DIR = path.dirname(BENCH_DIR);
const RESULTS_FILE = path.join(BENCH_DIR, 'results', 'engine.json');
const DEFAULT_SIZES = [10, 100, 1000];
const DEFAULT_IMAP_SIZES = [100, 1000];
const DEFAULT_REPEATS = 3;
const SAMPLE_MS = 10;
/** "Flat" means the larger size is within this factor of the smaller one. */
const FLAT_FACTOR = 1.5;
const CHARS_PER_TOKEN = 4;
const WORKFLOW_ID = 'inbox-triage';

// ---------------------------------------------------------------------------
// Instruments
// ---------------------------------------------------------------------------

/** The offline model, timing its own generator: only the time spent pulling its events counts. */
class TimedOfflineModel extends OfflineModel {
  modelMs = 0;
  inputCharsTotal = 0;

  override async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    const inner = super.stream(messages, options)[Symbol.asyncIterator]();
    let first = true;
    for (;;) {
      const started = performance.now();
      const next = await inner.next();
      this.modelMs += performance.now() - started;
      // The first pull runs the turn's bookkeeping: stats now describe this turn's input.
      if (first) {
        first = false;
        this.inputCharsTotal += this.stats.lastInputChars;
      }
      if (next.done) return;
      yield next.value;
    }
  }
}

type StoreMethod = Exclude<keyof Store, 'listRunsOf' | 'commit' | 'getMany'>;
const WRITES: readonly StoreMethod[] = ['create', 'update', 'put', 'delete'];

/** A Store that counts (and times) every call by method and collection, then delegates. */
class CountingStore implements Store {
  calls: Record<StoreMethod, number> = {
    get: 0,
    list: 0,
    listWithStatus: 0,
    create: 0,
    update: 0,
    put: 0,
    delete: 0,
  };
  writesByCollection: Partial<Record<Collection, number>> = {};
  ms = 0;

  constructor(readonly inner: Store) {}

  reset(): void {
    for (const key of Object.keys(this.calls) as StoreMethod[]) this.calls[key] = 0;
    this.writesByCollection = {};
    this.ms = 0;
  }

  get writes(): number {
    return WRITES.reduce((sum, m) => sum + this.calls[m], 0);
  }

  private async count<R>(method: StoreMethod, collection: Collection, call: () => Promise<R>): Promise<R> {
    this.calls[method] += 1;
    if (WRITES.includes(method))
      this.writesByCollection[collection] = (this.writesByCollection[collection] ?? 0) + 1;
    const started = performance.now();
    try {
      return await call();
    } finally {
      this.ms += performance.now() - started;
    }
  }

  get(collection: Collection, id: string): Promise<JsonRecord | undefined> {
    return this.count('get', collection, () => this.inner.get(collection, id));
  }
  list(collection: Collection): Promise<JsonRecord[]> {
    return this.count('list', collection, () => this.inner.list(collection));
  }
  listWithStatus(collection: Collection, status: string): Promise<JsonRecord[]> {
    return this.count('listWithStatus', collection, () => this.inner.listWithStatus(collection, status));
  }
  create<T extends JsonRecord>(collection: Collection, record: T): Promise<Versioned<T>> {
    return this.count('create', collection, () => this.inner.create(collection, record));
  }
  update<T extends JsonRecord>(
    collection: Collection,
    record: T,
    expectedVersion: number,
  ): Promise<Versioned<T>> {
    return this.count('update', collection, () => this.inner.update(collection, record, expectedVersion));
  }
  put(collection: Collection, record: JsonRecord): Promise<void> {
    return this.count('put', collection, () => this.inner.put(collection, record));
  }
  delete(collection: Collection, id: string): Promise<void> {
    return this.count('delete', collection, () => this.inner.delete(collection, id));
  }
}

/** Samples process.memoryUsage() every SAMPLE_MS and keeps the peaks. */
function startMemorySampler() {
  let peakRss = 0;
  let peakHeap = 0;
  let samples = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    samples += 1;
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakRss, peakHeap, samples };
    },
  };
}

const silentNotifier: Notifier = { notify: async () => {} };

// ---------------------------------------------------------------------------
// One size (child process)
// ---------------------------------------------------------------------------

/** Where the run reads its mail. */
export type BenchSource = 'maildir' | 'imap';

export interface SizeResult {
  source: BenchSource;
  n: number;
  seed: number;
  page_size: number;
  kinds: Record<MailKind, number>;
  status: string;
  error: string | null;
  acted: number;
  deferred: number;
  declined: number;
  failed: number;
  /** acted + deferred + declined + failed: should equal n. */
  handled: number;
  wall_ms: number;
  items_per_s: number;
  wall_ms_per_item: number;
  platform_ms_per_item: number;
  model_ms_per_item: number;
  /** Time awaiting store calls (JSON files: temp file + fsync + rename, lock files). */
  store_ms_per_item: number;
  /** Platform time outside the model and the store: the engine's own CPU work and source I/O. */
  engine_ms_per_item: number;
  rss_before_mb: number;
  peak_rss_mb: number;
  peak_heap_mb: number;
  memory_samples: number;
  store_writes: number;
  store_writes_per_item: number;
  store_calls: Record<StoreMethod, number>;
  store_writes_by_collection: Partial<Record<Collection, number>>;
  /** Size of the run record (with the paused graph snapshot) as compact JSON. */
  run_record_kb: number;
  turns: number;
  max_input_chars_per_turn: number;
  mean_input_chars_per_turn: number;
  est_max_tokens_per_turn: number;
  est_mean_tokens_per_turn: number;
  /** IMAP commands sent during the run (each one round trip); null for a Maildir. */
  round_trips: number | null;
  round_trips_per_item: number | null;
  commands_by_name: Record<string, number> | null;
  /** Set on the median run of a variant: how many runs, and their spread. */
  spread?: Spread;
  profile?: ProfileSummary;
}

/** Runs of one variant (source and size): platform ms/item and wall s, min and max. */
export interface Spread {
  runs: number;
  platform_ms_per_item: [number, number];
  wall_ms: [number, number];
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function measure(
  n: number,
  seed: number,
  keep = false,
  source: BenchSource = 'maildir',
): Promise<SizeResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), `handoff-bench-${n}-`));
  const maildir = path.join(root, 'Maildir');
  const stateDir = path.join(root, 'state');
  let imap: ImapBench | null = null;
  try {
    const inbox = generateInbox(n, seed);
    if (source === 'imap') imap = await startImapSource(inbox.messages);
    else await writeMaildir(maildir, inbox.messages);

    const store = new CountingStore(new JsonFileStore(stateDir));
    const models: TimedOfflineModel[] = [];
    const factory: ModelFactory = async () => {
      const model = new TimedOfflineModel();
      models.push(model);
      return model;
    };
    const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
    const deps = engineFromEnv(env, { store, models: factory, notifier: silentNotifier, emit: () => {} });
    let yaml = demoWorkflowYaml(maildir);
    if (imap) {
      await imap.storeCredential(deps.credentials);
      yaml = yaml.replace(/^source: .*$/m, `source: ${JSON.stringify(imap.source)}`);
    }
    await saveWorkflow(store, parseWorkflow(yaml, `${WORKFLOW_ID}.yaml`));
    store.reset();
    imap?.counter.reset();

    const rssBefore = process.memoryUsage().rss;
    const sampler = startMemorySampler();
    const started = performance.now();
    const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: null });
    const wallMs = performance.now() - started;
    const memory = sampler.stop();
    const commands = imap ? structuredClone(imap.counter.count) : null;

    const record = await store.inner.get('runs', run.id); // not counted: the run is over
    const modelMs = models.reduce((s, m) => s + m.modelMs, 0);
    const turns = models.reduce((s, m) => s + m.stats.turns, 0);
    const maxInput = models.reduce((s, m) => Math.max(s, m.stats.maxInputChars), 0);
    const meanInput = turns > 0 ? models.reduce((s, m) => s + m.inputCharsTotal, 0) / turns : 0;
    const { acted, deferred, declined, failed } = run.counts;
    return {
      source,
      n,
      seed,
      page_size: deps.settings.pageSize,
      kinds: inbox.kinds,
      status: run.status,
      error: run.error,
      acted,
      deferred,
      declined,
      failed,
      handled: acted + deferred + declined + failed,
      wall_ms: round(wallMs, 1),
      items_per_s: round(n / (wallMs / 1000), 1),
      wall_ms_per_item: round(wallMs / n),
      platform_ms_per_item: round((wallMs - modelMs) / n),
      model_ms_per_item: round(modelMs / n),
      store_ms_per_item: round(store.ms / n),
      engine_ms_per_item: round((wallMs - modelMs - store.ms) / n),
      rss_before_mb: mb(rssBefore),
      peak_rss_mb: mb(memory.peakRss),
      peak_heap_mb: mb(memory.peakHeap),
      memory_samples: memory.samples,
      store_writes: store.writes,
      store_writes_per_item: round(store.writes / n, 2),
      store_calls: { ...store.calls },
      store_writes_by_collection: { ...store.writesByCollection },
      run_record_kb: Math.round(Buffer.byteLength(JSON.stringify(record ?? {})) / 102.4) / 10,
      turns,
      max_input_chars_per_turn: maxInput,
      mean_input_chars_per_turn: Math.round(meanInput),
      est_max_tokens_per_turn: Math.ceil(maxInput / CHARS_PER_TOKEN),
      est_mean_tokens_per_turn: Math.ceil(meanInput / CHARS_PER_TOKEN),
      round_trips: commands ? commands.total : null,
      round_trips_per_item: commands ? round(commands.total / n) : null,
      commands_by_name: commands ? commands.byName : null,
    };
  } finally {
    await imap?.stop();
    if (!keep) await rm(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
  }
}

// ---------------------------------------------------------------------------
// All sizes (parent process)
// ---------------------------------------------------------------------------

interface ChildOutcome {
  result: SizeResult | null;
  error: string | null;
  process_ms: number;
}

function runChild(
  n: number,
  source: BenchSource,
  seed: number,
  profileDir: string | null,
  keep: boolean,
): Promise<ChildOutcome> {
  const nodeArgs = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=engine-${source}-${n}.cpuprofile`]
    : [];
  const args = [
    ...nodeArgs,
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    '--child',
    String(n),
    '--source',
    source,
    '--json',
    '--seed',
    String(seed),
    ...(keep ? ['--keep'] : []),
  ];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', (err) => resolve({ result: null, error: err.message, process_ms: 0 }));
    child.on('close', (code, signal) => {
      const processMs = Math.round(performance.now() - started);
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      if (code !== 0 || !line) {
        resolve({
          result: null,
          error: `child for ${source} N=${n} exited ${signal ?? code}`,
          process_ms: processMs,
        });
        return;
      }
      resolve({ result: JSON.parse(line) as SizeResult, error: null, process_ms: processMs });
    });
  });
}

interface Ratio {
  metric: string;
  from_n: number;
  to_n: number;
  from: number;
  to: number;
  ratio: number;
  verdict: 'flat' | 'grew' | 'shrank';
}

function compare(rows: SizeResult[], metric: keyof SizeResult, label: string): Ratio | null {
  const sorted = [...rows].sort((a, b) => a.n - b.n);
  const to = sorted.at(-1);
  const from = sorted.at(-2);
  if (!to || !from) return null;
  const a = Number(from[metric]);
  const b = Number(to[metric]);
  const ratio = a === 0 ? (b === 0 ? 1 : Infinity) : b / a;
  const verdict = ratio > FLAT_FACTOR ? 'grew' : ratio < 1 / FLAT_FACTOR ? 'shrank' : 'flat';
  return { metric: label, from_n: from.n, to_n: to.n, from: a, to: b, ratio: round(ratio, 2), verdict };
}

function table(rows: SizeResult[]): string {
  const head = [
    'source',
    'N',
    'status',
    'acted / deferred / declined',
    'wall s',
    'items/s',
    'platform ms/item (min–max)',
    'IMAP round trips/item',
    'model ms/item',
    'store ms/item',
    'other platform ms/item',
    'peak RSS MB',
    'peak heap MB',
    'store writes/item',
    'turns',
    'input chars/turn max / mean',
    'est tokens/turn max / mean',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows)
    lines.push(
      `| ${[
        r.source,
        r.n,
        r.status,
        `${r.acted} / ${r.deferred} / ${r.declined}${r.failed ? ` (${r.failed} failed)` : ''}`,
        (r.wall_ms / 1000).toFixed(2),
        r.items_per_s.toFixed(1),
        r.platform_ms_per_item.toFixed(2) +
          (r.spread
            ? ` (${r.spread.platform_ms_per_item[0].toFixed(2)}–${r.spread.platform_ms_per_item[1].toFixed(2)})`
            : ''),
        r.round_trips_per_item === null ? '—' : r.round_trips_per_item.toFixed(3),
        r.model_ms_per_item.toFixed(3),
        r.store_ms_per_item.toFixed(2),
        r.engine_ms_per_item.toFixed(2),
        r.peak_rss_mb.toFixed(1),
        r.peak_heap_mb.toFixed(1),
        r.store_writes_per_item.toFixed(2),
        r.turns,
        `${r.max_input_chars_per_turn} / ${r.mean_input_chars_per_turn}`,
        `${r.est_max_tokens_per_turn} / ${r.est_mean_tokens_per_turn}`,
      ].join(' | ')} |`,
    );
  return lines.join('\n');
}

function describeRatio(r: Ratio): string {
  const word =
    r.verdict === 'flat' ? 'stayed flat' : r.verdict === 'grew' ? 'did NOT stay flat (grew)' : 'shrank';
  return `${r.metric}: ${r.from} at N=${r.from_n} -> ${r.to} at N=${r.to_n} (${r.ratio}x) - ${word}`;
}

/** The run with the median platform time of each variant, carrying the variant's spread. */
function medians(runs: SizeResult[]): SizeResult[] {
  const groups = new Map<string, SizeResult[]>();
  for (const r of runs) groups.set(`${r.source} ${r.n}`, [...(groups.get(`${r.source} ${r.n}`) ?? []), r]);
  const out: SizeResult[] = [];
  for (const group of groups.values()) {
    const sorted = [...group].sort((a, b) => a.platform_ms_per_item - b.platform_ms_per_item);
    const walls = group.map((r) => r.wall_ms);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    out.push({
      ...median,
      spread: {
        runs: group.length,
        platform_ms_per_item: [sorted[0]!.platform_ms_per_item, sorted.at(-1)!.platform_ms_per_item],
        wall_ms: [Math.min(...walls), Math.max(...walls)],
      },
    });
  }
  // Maildir first, then IMAP; each by size.
  return out.sort((a, b) => b.source.localeCompare(a.source) || a.n - b.n);
}

interface BenchPlan {
  sizes: number[];
  imapSizes: number[];
  repeats: number;
  seed: number;
  profile: boolean;
  keep: boolean;
}

async function parent(plan: BenchPlan): Promise<number> {
  const { sizes, imapSizes, repeats, seed, profile, keep } = plan;
  const profileDir = profile ? await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-prof-')) : null;
  const runs: SizeResult[] = [];
  const errors: { n: number; source: BenchSource; error: string }[] = [];
  const benchStarted = performance.now();
  const variants = [...new Set([...sizes, ...imapSizes])]
    .sort((a, b) => a - b)
    .flatMap((n) => [
      ...(sizes.includes(n) ? [{ n, source: 'maildir' as const }] : []),
      ...(imapSizes.includes(n) ? [{ n, source: 'imap' as const }] : []),
    ]);
  // Interleaved: each repeat runs every variant once, so load on a shared machine hits all alike.
  for (let repeat = 1; repeat <= repeats; repeat += 1)
    for (const { n, source } of variants) {
      process.stderr.write(`bench: ${repeat}/${repeats} ${source} N=${n} ... `);
      const outcome = await runChild(n, source, seed, repeat === 1 ? profileDir : null, keep);
      if (!outcome.result) {
        process.stderr.write(`failed (${outcome.error ?? 'unknown'})\n`);
        errors.push({ n, source, error: outcome.error ?? 'unknown' });
        continue;
      }
      const row = outcome.result;
      if (profileDir && repeat === 1) {
        const name = `engine-${source}-${n}.cpuprofile`;
        const file = (await readdir(profileDir)).find((f) => f === name);
        if (file) row.profile = await summariseProfile(path.join(profileDir, file));
      }
      process.stderr.write(
        `${(row.wall_ms / 1000).toFixed(2)} s run, ${(outcome.process_ms / 1000).toFixed(1)} s process\n`,
      );
      runs.push(row);
    }
  const totalS = round((performance.now() - benchStarted) / 1000, 1);
  const all = medians(runs);
  const rows = all.filter((r) => r.source === 'maildir');
  const imapRows = all.filter((r) => r.source === 'imap');

  const ratios = [
    compare(rows, 'platform_ms_per_item', 'platform time per item (ms, excl. model)'),
    compare(rows, 'wall_ms_per_item', 'wall time per item (ms)'),
    compare(rows, 'store_ms_per_item', 'store time per item (ms)'),
    compare(rows, 'engine_ms_per_item', 'other platform time per item (ms, excl. model and store)'),
    compare(rows, 'model_ms_per_item', 'model time per item (ms)'),
    compare(rows, 'mean_input_chars_per_turn', 'mean input chars per turn'),
    compare(rows, 'max_input_chars_per_turn', 'max input chars per turn'),
    compare(rows, 'store_writes_per_item', 'store writes per item'),
    compare(rows, 'peak_heap_mb', 'peak heap (MB)'),
    compare(imapRows, 'platform_ms_per_item', 'IMAP: platform time per item (ms, excl. model)'),
    compare(imapRows, 'round_trips_per_item', 'IMAP: round trips per item'),
  ].filter((r): r is Ratio => r !== null);

  const out: string[] = [];
  out.push(
    `## Engine benchmark (inbox-triage, offline model, JSON-file store, page size ${DEFAULT_PAGE_SIZE})`,
    '',
  );
  out.push(
    `Seed 0x${seed.toString(16)}; Node ${process.version}; ${os.cpus().length} CPU(s); one fresh child process per run; ${repeats} run(s) of each variant, interleaved; the median run shown (by platform ms/item); total ${totalS} s.`,
    '',
  );
  out.push(table(all), '');
  for (const r of all) {
    const kinds = Object.entries(r.kinds)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const writes = Object.entries(r.store_writes_by_collection)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const calls = Object.entries(r.store_calls)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const commands = r.commands_by_name
      ? ` IMAP commands: ${Object.entries(r.commands_by_name)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`
      : '';
    out.push(
      `- ${r.source} N=${r.n}: mail ${kinds}.${commands} Store calls (run only): ${calls}; writes by collection: ${writes}. ` +
        `Run record at the end: ${r.run_record_kb} KB.`,
    );
    if (r.handled !== r.n)
      out.push(`  - WARNING: ${r.handled} of ${r.n} items accounted for in the run counts.`);
    if (r.error) out.push(`  - run error: ${r.error}`);
  }
  out.push('', '### Flatness (largest size vs the next, flat = within 1.5x)', '');
  if (ratios.length === 0) out.push('- Need at least two sizes to compare.');
  for (const r of ratios) out.push(`- ${describeRatio(r)}`);
  const time = ratios.find((r) => r.metric.startsWith('platform time'));
  const input = ratios.find((r) => r.metric.startsWith('mean input'));
  const inputMax = ratios.find((r) => r.metric.startsWith('max input'));
  if (time && input && inputMax) {
    out.push(
      '',
      `**Verdict:** time per item ${time.verdict === 'grew' ? 'did NOT stay flat' : 'stayed flat'} (${time.ratio}x); ` +
        `input per turn ${input.verdict === 'grew' || inputMax.verdict === 'grew' ? 'did NOT stay flat' : 'stayed flat'} ` +
        `(mean ${input.ratio}x, max ${inputMax.ratio}x), N=${time.from_n} -> N=${time.to_n}.`,
    );
  }
  const engine = ratios.find((r) => r.metric.startsWith('other platform'));
  if (engine && engine.verdict === 'grew')
    out.push(
      '',
      `Note: the engine's own time per item outside the model and the store grew ${engine.ratio}x ` +
        `(${engine.from} -> ${engine.to} ms); store I/O time per item hides part of that in the platform total.`,
    );
  for (const r of all) {
    if (!r.profile) continue;
    out.push(
      '',
      `### CPU profile ${r.source} N=${r.n} (${r.profile.total_ms} ms sampled; ${r.profile.file})`,
      '',
    );
    out.push('Self time by area:', '');
    for (const e of r.profile.by_area.slice(0, 10)) out.push(`- ${e.name}: ${e.ms} ms (${e.share}%)`);
    out.push('', 'Top frames (self time):', '');
    for (const e of r.profile.top_functions.slice(0, 12)) out.push(`- ${e.name}: ${e.ms} ms (${e.share}%)`);
    out.push('', 'Project frames (inclusive, sync portions):', '');
    for (const e of r.profile.top_project_inclusive.slice(0, 10))
      out.push(`- ${e.name}: ${e.ms} ms (${e.share}%)`);
  }
  for (const e of errors) out.push('', `**${e.source} N=${e.n} failed:** ${e.error}`);
  process.stdout.write(`${out.join('\n')}\n`);

  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  const json = {
    benchmark: 'engine',
    generated_at: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    seed,
    sizes,
    imap_sizes: imapSizes,
    repeats,
    page_size: DEFAULT_PAGE_SIZE,
    flat_factor: FLAT_FACTOR,
    total_s: totalS,
    rows: all,
    runs,
    flatness: ratios,
    errors,
  };
  // Formatted like the rest of the repository, so `npm run format:check` stays green after a bench.
  // Imported here, not at the top: the children measure memory and should not carry prettier.
  const { format, resolveConfig } = await import('prettier');
  const config = (await resolveConfig(RESULTS_FILE)) ?? {};
  await writeFile(RESULTS_FILE, await format(JSON.stringify(json), { ...config, filepath: RESULTS_FILE }));
  process.stderr.write(`bench: wrote ${path.relative(PROJECT_DIR, RESULTS_FILE)}\n`);
  return errors.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------

function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((s) => !Number.isInteger(s) || s <= 0))
    throw new Error(`--sizes wants positive integers separated by commas, got "${text}"`);
  return sizes;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      child: { type: 'string' },
      json: { type: 'boolean', default: false },
      seed: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      source: { type: 'string', default: 'maildir' },
      'imap-sizes': { type: 'string' },
      repeats: { type: 'string' },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : DEFAULT_SEED;
  if (!Number.isInteger(seed)) throw new Error(`--seed wants an integer, got "${values.seed}"`);
  if (values.child !== undefined) {
    const [n] = parseSizes(values.child);
    const source = values.source;
    if (source !== 'maildir' && source !== 'imap')
      throw new Error(`--source wants maildir or imap, got "${source}"`);
    const result = await measure(n!, seed, values.keep, source);
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${table([result])}\n`);
    return 0;
  }
  const sizes = values.sizes !== undefined ? parseSizes(values.sizes) : DEFAULT_SIZES;
  const imapSizes =
    values['imap-sizes'] === undefined
      ? DEFAULT_IMAP_SIZES
      : values['imap-sizes'] === ''
        ? []
        : parseSizes(values['imap-sizes']);
  const repeats = values.repeats !== undefined ? Number(values.repeats) : DEFAULT_REPEATS;
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new Error(`--repeats wants a positive integer, got "${values.repeats}"`);
  return parent({ sizes, imapSizes, repeats, seed, profile: values.profile, keep: values.keep });
}

process.exitCode = await main();

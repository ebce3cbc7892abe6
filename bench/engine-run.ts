/**
 * One engine bench run (in a child process): inbox-triage over N seeded messages through the
 * real engine (startRun) with the offline model, on the chosen store, then, for a Maildir,
 * every question answered and the run resumed. Or the bare Strands floor over the same inbox.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadEnv } from '../shared/config/env.ts';
import type { ModelFactory } from '../shared/models/provider.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { DEFAULT_PAGE_SIZE, engineFromEnv } from '../shared/runs/wire.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import type { Store } from '../shared/store/store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { openBenchTable } from './bench-dynamo.ts';
import type { ProfileSummary } from './cpu-profile.ts';
import { measureFloor } from './floor.ts';
import { generateInbox, type MailKind } from './generate-mail.ts';
import { startImapSource, type ImapBench } from './imap-bench.ts';
import {
  TimedOfflineModel,
  countingStore,
  mb,
  modelTotals,
  round,
  silentNotifier,
  medianOf,
  startMemorySampler,
} from './instruments.ts';
import { MemoryStore } from './memory-store.ts';
import { measureResume, type ResumeResult } from './resume.ts';

const CHARS_PER_TOKEN = 4;
const WORKFLOW_ID = 'inbox-triage';
/** The default CONFIDENCE_THRESHOLD, which the engine runs use too. */
const THRESHOLD = 0.7;

/** Where the run reads its mail; `floor` is the bare Strands agent, no engine at all. */
export type BenchSource = 'maildir' | 'imap' | 'floor';
/** The engine's store: JSON files (the local default), memory, or DynamoDB on dynalite. */
export type StoreKind = 'json' | 'memory' | 'dynamodb' | 'none';
export const STORE_KINDS: readonly StoreKind[] = ['json', 'memory', 'dynamodb'];

/** One run of one variant. */
export interface SizeResult {
  source: BenchSource;
  store: StoreKind;
  n: number;
  seed: number;
  /** Measured after an untimed warm-up run of WARMUP_ITEMS in the same process (true only when one ran them all). */
  warm: boolean;
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
  /** Wall time outside the model, per item (the floor's: the agent loop and its in-memory tools). */
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
  store_calls: Record<string, number>;
  store_writes_by_collection: Record<string, number>;
  /** Size of the run record (with the paused graph snapshot) as compact JSON. */
  run_record_kb: number;
  turns: number;
  tool_calls: number;
  max_input_chars_per_turn: number;
  mean_input_chars_per_turn: number;
  est_max_tokens_per_turn: number;
  est_mean_tokens_per_turn: number;
  /** IMAP commands sent during the run (each one round trip); null for a Maildir. */
  round_trips: number | null;
  round_trips_per_item: number | null;
  commands_by_name: Record<string, number> | null;
  /** Every question answered and the run resumed (Maildir runs), else null. */
  resume: ResumeResult | null;
  /** Warm runs only: how many timed runs of this size the child made (this one is their median). */
  timed_runs?: number;
  /** Warm runs with the floor paired: the floor's median platform ms/item, run after each timed run in the same process. */
  paired_floor_ms_per_item?: number;
  /** Warm runs with the floor paired: this run's platform ms/item over the paired floor's median. */
  paired_x_floor?: number;
  /** Set by the parent: platform ms/item over the floor's at the same N. */
  x_floor?: number | null;
  /** Set on the median run of a variant: how many runs, and their spread. */
  spread?: Spread;
  profile?: ProfileSummary;
}

/** Runs of one variant: platform ms/item and wall ms, min and max. */
export interface Spread {
  runs: number;
  platform_ms_per_item: [number, number];
  wall_ms: [number, number];
  resume_s?: [number, number];
}

/** How one child run is set up. */
export interface RunOptions {
  source: BenchSource;
  store: StoreKind;
  /** dynalite's endpoint, for the DynamoDB store. */
  dynamodbEndpoint?: string | undefined;
  /** Answer every question and resume (Maildir only). */
  resume: boolean;
  keep: boolean;
  /**
   * First an untimed run of WARMUP_ITEMS (another seed) in this process, as a server's
   * scheduler or a warm Lambda has run before: the timed run then pays no module loading
   * or first compilation.
   */
  warm?: boolean;
  /** Warm only: time the floor after each timed run, in the same process (see `measure`). */
  pairFloor?: boolean;
}

/** The size of the untimed run a warm measurement makes first. */
export const WARMUP_ITEMS = 20;

async function openStoreFor(opts: RunOptions, stateDir: string) {
  if (opts.store === 'memory') return { store: new MemoryStore() as Store, drop: async () => {} };
  if (opts.store === 'dynamodb') {
    if (!opts.dynamodbEndpoint) throw new Error('the dynamodb store needs --dynamodb-endpoint');
    return openBenchTable(opts.dynamodbEndpoint);
  }
  return { store: new JsonFileStore(stateDir) as Store, drop: async () => {} };
}

/**
 * In a warm child, a run of fewer items is timed again until the timed runs cover this many
 * items, and the median run is kept: a 10-item run lasts tens of milliseconds, where one
 * scheduler hiccup on a shared machine is a third of the figure; a 1,000-item run averages
 * over its own two seconds.
 */
export const WARM_TIMED_ITEMS = 1_000;

/**
 * One run of the engine (or the floor) over `n` seeded messages, measured. Warm: after an
 * untimed run of WARMUP_ITEMS, the median of ⌈WARM_TIMED_ITEMS / n⌉ timed runs (only the
 * first answers its questions and resumes); with `pairFloor`, each timed run is followed by
 * the floor's over the same mail in the same process, and × floor is the ratio of the two
 * interleaved series' medians, taken under the same load.
 */
export async function measure(n: number, seed: number, opts: RunOptions): Promise<SizeResult> {
  if (!opts.warm) return measureOnce(n, seed, opts, false);
  const pairFloor = opts.pairFloor === true && opts.source !== 'floor';
  const warmup = await measureOnce(WARMUP_ITEMS, seed + 1, { ...opts, resume: false, keep: false }, false);
  if (pairFloor) await measureFloorRow(WARMUP_ITEMS, seed + 1, false);
  const warm = warmup.handled === WARMUP_ITEMS;
  const timed: SizeResult[] = [];
  const floors: number[] = [];
  do {
    const first = timed.length === 0;
    timed.push(await measureOnce(n, seed, first ? opts : { ...opts, resume: false, keep: false }, warm));
    if (pairFloor) floors.push((await measureFloorRow(n, seed, warm)).platform_ms_per_item);
  } while (timed.length * n < WARM_TIMED_ITEMS);
  const median = medianOf(timed, (r) => r.platform_ms_per_item)!;
  // The medians of one interleaved series: a floor run is short, so one pair's ratio is noisy.
  const floor = pairFloor ? medianOf(floors, (x) => x)! : 0;
  return {
    ...median,
    resume: timed[0]!.resume,
    timed_runs: timed.length,
    ...(pairFloor
      ? {
          paired_floor_ms_per_item: round(floor, 3),
          paired_x_floor: round(median.platform_ms_per_item / floor, 2),
        }
      : {}),
  };
}

async function measureOnce(n: number, seed: number, opts: RunOptions, warm: boolean): Promise<SizeResult> {
  if (opts.source === 'floor') return measureFloorRow(n, seed, warm);
  const root = await mkdtemp(path.join(os.tmpdir(), `handoff-bench-${n}-`));
  const maildir = path.join(root, 'Maildir');
  const stateDir = path.join(root, 'state');
  let imap: ImapBench | null = null;
  const opened = await openStoreFor(opts, stateDir);
  try {
    const inbox = generateInbox(n, seed);
    if (opts.source === 'imap') imap = await startImapSource(inbox.messages);
    else await writeMaildir(maildir, inbox.messages);

    const store = countingStore(opened.store);
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
    const storeMs = store.ms;
    const storeCalls = { ...store.calls };
    const storeWrites = store.writes;
    const writesByCollection = { ...store.writesByCollection };

    const record = await store.inner.get('runs', run.id); // not counted: the run is over
    const totals = modelTotals(models);
    const resume =
      opts.resume && opts.source === 'maildir' && run.status === 'waiting'
        ? await measureResume(deps, store, models, run.id)
        : null;
    const { acted, deferred, declined, failed } = run.counts;
    return {
      source: opts.source,
      store: opts.store,
      n,
      seed,
      warm,
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
      platform_ms_per_item: round((wallMs - totals.modelMs) / n),
      model_ms_per_item: round(totals.modelMs / n),
      store_ms_per_item: round(storeMs / n),
      engine_ms_per_item: round((wallMs - totals.modelMs - storeMs) / n),
      rss_before_mb: mb(rssBefore),
      peak_rss_mb: mb(memory.peakRss),
      peak_heap_mb: mb(memory.peakHeap),
      memory_samples: memory.samples,
      store_writes: storeWrites,
      store_writes_per_item: round(storeWrites / n, 2),
      store_calls: storeCalls,
      store_writes_by_collection: writesByCollection,
      run_record_kb: Math.round(Buffer.byteLength(JSON.stringify(record ?? {})) / 102.4) / 10,
      turns: totals.turns,
      tool_calls: totals.toolCalls,
      max_input_chars_per_turn: totals.maxInputChars,
      mean_input_chars_per_turn: Math.round(totals.meanInputChars),
      est_max_tokens_per_turn: Math.ceil(totals.maxInputChars / CHARS_PER_TOKEN),
      est_mean_tokens_per_turn: Math.ceil(totals.meanInputChars / CHARS_PER_TOKEN),
      round_trips: commands ? commands.total : null,
      round_trips_per_item: commands ? round(commands.total / n) : null,
      commands_by_name: commands ? commands.byName : null,
      resume,
    };
  } finally {
    await imap?.stop();
    await opened.drop();
    if (!opts.keep) await rm(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
  }
}

/** The bare Strands floor over the same inbox, as a row of the same table. */
async function measureFloorRow(n: number, seed: number, warm: boolean): Promise<SizeResult> {
  const rssBefore = process.memoryUsage().rss;
  const sampler = startMemorySampler();
  const floor = await measureFloor(n, seed, { pageSize: DEFAULT_PAGE_SIZE, threshold: THRESHOLD });
  const memory = sampler.stop();
  return {
    source: 'floor',
    store: 'none',
    n,
    seed,
    warm,
    page_size: DEFAULT_PAGE_SIZE,
    kinds: generateInbox(n, seed).kinds,
    status: 'completed',
    error: null,
    acted: floor.submitted,
    deferred: 0,
    declined: 0,
    failed: 0,
    handled: floor.submitted,
    wall_ms: round(floor.wall_ms, 1),
    items_per_s: round(n / (floor.wall_ms / 1000), 1),
    wall_ms_per_item: round(floor.wall_ms / n),
    platform_ms_per_item: round((floor.wall_ms - floor.model_ms) / n),
    model_ms_per_item: round(floor.model_ms / n),
    store_ms_per_item: 0,
    engine_ms_per_item: round((floor.wall_ms - floor.model_ms) / n),
    rss_before_mb: mb(rssBefore),
    peak_rss_mb: mb(memory.peakRss),
    peak_heap_mb: mb(memory.peakHeap),
    memory_samples: memory.samples,
    store_writes: 0,
    store_writes_per_item: 0,
    store_calls: {},
    store_writes_by_collection: {},
    run_record_kb: 0,
    turns: floor.turns,
    tool_calls: floor.tool_calls,
    max_input_chars_per_turn: floor.max_input_chars,
    mean_input_chars_per_turn: floor.mean_input_chars,
    est_max_tokens_per_turn: Math.ceil(floor.max_input_chars / CHARS_PER_TOKEN),
    est_mean_tokens_per_turn: Math.ceil(floor.mean_input_chars / CHARS_PER_TOKEN),
    round_trips: null,
    round_trips_per_item: null,
    commands_by_name: null,
    resume: null,
  };
}

/**
 * One engine bench run (in a child process): inbox-triage over N seeded messages through the
 * real engine (startRun) with the offline model, on the chosen store, then, for a Maildir,
 * every question answered and the run resumed. Or the bare Strands floor over the same inbox.
 * Or, warm, a series of runs of every size in one workspace (`measureSeries`).
 */
import { startRun } from '../shared/runs/start-run.ts';
import { DEFAULT_PAGE_SIZE } from '../shared/runs/wire.ts';
import type { ProfileSummary } from './cpu-profile.ts';
import { WORKFLOW_ID, openWorkspace, type BenchWorkspace } from './engine-workspace.ts';
import { measureFloor } from './floor.ts';
import { generateInbox, type GeneratedInbox, type MailKind } from './generate-mail.ts';
import { mb, medianOf, modelTotals, round, startMemorySampler } from './instruments.ts';
import { measureResume, type ResumeResult } from './resume.ts';

const CHARS_PER_TOKEN = 4;
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
  /** Timed in a warm series, after its untimed first round (see `measureSeries`). */
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
  /** Warm series only: how many timed runs of this size the child made (this one is their median). */
  timed_runs?: number;
  /** Warm series only: the runs its one workspace holds when the series ends (every size's, untimed ones too). */
  workspace_runs?: number;
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
  /** Measured as a warm series (see `measureSeries`), not one run in a fresh process. */
  warm?: boolean;
  /** Warm only: time the floor after each timed run, in the same process. */
  pairFloor?: boolean;
  /** Warm only: timed rounds (WARM_ROUNDS). */
  rounds?: number;
}

/**
 * A warm series times each size over again until ⌈WARM_TIMED_ITEMS / n⌉ runs were timed in
 * every round: a 10-item run lasts tens of milliseconds, where one scheduler hiccup on a
 * shared machine is a third of the figure; a 1,000-item run averages over its own seconds.
 */
export const WARM_TIMED_ITEMS = 1_000;
/** Timed rounds of a warm series, after its untimed first one. */
export const WARM_ROUNDS = 3;

/** One run of the engine (or the floor) over `n` seeded messages, measured; warm: a series of one size. */
export async function measure(n: number, seed: number, opts: RunOptions): Promise<SizeResult> {
  if (opts.warm) return (await measureSeries([n], seed, opts))[0]!;
  return opts.source === 'floor' ? measureFloorRow(n, seed, false) : measureOnce(n, seed, opts);
}

/** A cold run: a workspace of its own, the run timed, then (a Maildir) every question answered and the run resumed. */
async function measureOnce(n: number, seed: number, opts: RunOptions): Promise<SizeResult> {
  const { source, store } = opts;
  if (source === 'floor' || store === 'none') throw new Error('the floor has no workspace');
  const inbox = generateInbox(n, seed);
  const ws = await openWorkspace({ ...opts, source, store }, inbox.messages);
  try {
    if (!ws.imap) await ws.deliver(inbox.messages);
    const { row, runId } = await timeRun(ws, n, seed, inbox, false);
    const resume =
      opts.resume && opts.source === 'maildir' && row.status === 'waiting'
        ? await measureResume(ws.deps, ws.store, ws.models, runId)
        : null;
    return { ...row, resume };
  } finally {
    await ws.close();
  }
}

/**
 * Warm, as a server's scheduler or a warm Lambda works: one process and one workspace (state
 * directory and mailbox) for every run, so the timing has no module loading, first
 * compilation or first use of a folder. The sizes take turns, a round of each after an
 * untimed round of each, so the machine's load falls on every size alike; each run gets new
 * mail (the same messages under new ids) and is settled after (see `settle`), and, with
 * `pairFloor`, followed by the floor's over the same mail in the same process. A size's row is
 * its median run, × floor the ratio of the two series' medians. Each size's resume is
 * measured after, in a workspace of its own: the answers teach rules that would change the
 * series' runs. The floor's series has no workspace: its rounds of floor runs alone.
 */
export async function measureSeries(
  sizes: readonly number[],
  seed: number,
  opts: RunOptions,
): Promise<SizeResult[]> {
  if (opts.source === 'imap') throw new Error('a warm series reads a Maildir; IMAP is measured cold');
  const pairFloor = opts.pairFloor === true && opts.source !== 'floor';
  const rounds = opts.rounds ?? WARM_ROUNDS;
  const { source, store } = opts;
  const ws =
    source === 'floor' || store === 'none'
      ? null
      : await openWorkspace({ ...opts, source: 'maildir', store });
  const timed = new Map(sizes.map((n) => [n, { runs: [] as SizeResult[], floors: [] as number[] }]));
  const inboxes = new Map(sizes.map((n) => [n, generateInbox(n, seed)]));
  let workspaceRuns: number | undefined;
  try {
    let delivery = 0;
    for (let round = 0; round <= rounds; round += 1)
      for (const n of sizes)
        for (let i = 0; i < Math.ceil(WARM_TIMED_ITEMS / n); i += 1) {
          const warm = round > 0;
          let row: SizeResult;
          if (ws) {
            delivery += 1;
            const inbox = inboxes.get(n)!;
            await ws.deliver(inbox.messages.map((m) => ({ ...m, messageId: `${delivery}.${m.messageId}` })));
            row = { ...(await timeRun(ws, n, seed, inbox, warm)).row, resume: null };
            await ws.settle();
          } else row = await measureFloorRow(n, seed, warm);
          const floor = pairFloor ? (await measureFloorRow(n, seed, warm)).platform_ms_per_item : 0;
          if (!warm) continue;
          timed.get(n)!.runs.push(row);
          timed.get(n)!.floors.push(floor);
        }
    if (ws) workspaceRuns = (await ws.store.inner.list('runs')).length;
  } finally {
    await ws?.close();
  }
  const rows: SizeResult[] = [];
  for (const n of sizes) {
    const { runs, floors } = timed.get(n)!;
    const median = medianOf(runs, (r) => r.platform_ms_per_item)!;
    const floor = medianOf(floors, (x) => x)!;
    const resume =
      opts.resume && opts.source === 'maildir' ? (await measureOnce(n, seed, opts)).resume : null;
    rows.push({
      ...median,
      resume,
      timed_runs: runs.length,
      ...(workspaceRuns !== undefined ? { workspace_runs: workspaceRuns } : {}),
      ...(pairFloor
        ? {
            paired_floor_ms_per_item: round(floor, 3),
            paired_x_floor: round(median.platform_ms_per_item / floor, 2),
          }
        : {}),
    });
  }
  return rows;
}

/** Times one run of the workflow over the `n` messages just delivered. */
async function timeRun(
  ws: BenchWorkspace,
  n: number,
  seed: number,
  inbox: GeneratedInbox,
  warm: boolean,
): Promise<{ row: Omit<SizeResult, 'resume'>; runId: string }> {
  const { deps, store, models, imap } = ws;
  models.length = 0;
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
  const record = await store.inner.get('runs', run.id); // not counted: the run is over
  const totals = modelTotals(models);
  const { acted, deferred, declined, failed } = run.counts;
  const row = {
    source: imap ? ('imap' as const) : ('maildir' as const),
    store: ws.kind,
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
    store_writes: store.writes,
    store_writes_per_item: round(store.writes / n, 2),
    store_calls: { ...store.calls },
    store_writes_by_collection: { ...store.writesByCollection },
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
  };
  return { row, runId: run.id };
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

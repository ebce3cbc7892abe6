/**
 * Engine benchmark: inbox-triage runs through the real engine (startRun) over N seeded
 * messages with the offline model, side by side with the bare Strands floor (the same model
 * turns and tool calls with no store, gate or recorder). Variants: the floor; a Maildir on the
 * in-memory, JSON-file and DynamoDB (dynalite, started here) stores; IMAP from a local
 * Dovecot on the JSON-file store (commands counted at a proxy). After each Maildir run every
 * question is answered through the decide path and the run resumed (one interrupt), timed
 * against the round trips of one interrupt per unsure item. Each run is a fresh child
 * process; the variants run interleaved, --repeats times; the tables show each one's median
 * run with min–max, and growth from the smallest size to the largest against ≤ 1.3×. With
 * --warm, one child per variant runs every size as a server would, in one workspace and
 * mailbox (see measureSeries in engine-run.ts).
 *
 *   npm run bench                          # sizes 10,100,1000; IMAP 100,1000; 3 repeats
 *   npm run bench -- --sizes 10,100 --imap-sizes '' --stores json,memory --repeats 1
 *   npm run bench -- --no-floor --no-resume   # --resume-stores json,memory,dynamodb adds DynamoDB's resume
 *   npm run bench -- --profile             # also --cpu-prof each child and summarise the hot frames
 *   npm run bench -- --warm --stores json,memory   # the steady state of a server (engine-warm.json)
 *   npm run bench -- --help
 *   tsx bench/engine.ts --child 100 --source maildir --store memory   # one run, in this process
 *
 * Prints markdown tables and writes bench/results/engine.json (engine-warm.json with --warm).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_PAGE_SIZE } from '../shared/runs/wire.ts';
import { startDynaliteServer } from './bench-dynamo.ts';
import { summariseProfile } from './cpu-profile.ts';
import {
  FLAT_TARGET,
  growth,
  growthTable,
  mainTable,
  medians,
  resumeTable,
  variantName,
} from './engine-report.ts';
import {
  STORE_KINDS,
  WARM_ROUNDS,
  WARM_TIMED_ITEMS,
  measure,
  measureSeries,
  type BenchSource,
  type RunOptions,
  type SizeResult,
  type StoreKind,
} from './engine-run.ts';
import { DEFAULT_SEED } from './generate-mail.ts';
import { round } from './instruments.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const PROJECT_DIR = path.dirname(BENCH_DIR);
const resultsFile = (warm: boolean) =>
  path.join(BENCH_DIR, 'results', warm ? 'engine-warm.json' : 'engine.json');
const DEFAULT_SIZES = [10, 100, 1000];
const DEFAULT_IMAP_SIZES = [100, 1000];
const DEFAULT_REPEATS = 3;
const DEFAULT_RESUME_STORES: StoreKind[] = ['json', 'memory'];

const HELP = `npm run bench -- [options]
  --sizes 10,100,1000        Maildir sizes (the floor and every store run at each)
  --imap-sizes 100,1000      IMAP sizes, on the JSON-file store ('' for none)
  --stores json,memory,dynamodb   the engine's stores for the Maildir runs
  --repeats 3                runs of each variant, interleaved (the median is shown)
  --no-floor                 leave out the bare Strands floor
  --resume-stores json,memory    after each Maildir run on these stores, answer every question
                             (decide path) and resume; DynamoDB is opt-in: dynalite takes about
                             100 ms an answer (4.5 requests), some 40 s for the 351 at 1,000
  --no-resume                no resume at all
  --seed N                   the mail generator's seed
  --profile                  --cpu-prof the first run of each variant and summarise it
  --keep                     keep each run's temp folder
  --warm                     the steady state of a server or a warm Lambda: one child per variant
                             runs every size in one workspace and one Maildir, the sizes taking
                             turns, an untimed round then 3 timed ones (1,000 items a size a
                             round: 100 runs of 10), new mail each run, its questions left to
                             lapse after; each run followed by the floor's in the same process
                             (× floor: the ratio of their medians). Maildir only: IMAP runs cold.
                             (writes bench/results/engine-warm.json)
One run, in this process: --child N --source maildir|imap|floor --store json|memory|dynamodb
  [--dynamodb-endpoint URL] [--no-resume] [--json]; a warm series: --child 10,100,1000 --warm [--pair-floor]`;

/** One cell of the plan: a variant at one size (cold), or at every size in one warm series. */
interface Variant {
  sizes: number[];
  source: BenchSource;
  store: StoreKind;
}

interface ChildOutcome {
  results: SizeResult[];
  error: string | null;
  process_ms: number;
}

const profileName = (v: Variant) => `engine-${v.source}-${v.store}-${v.sizes.join('-')}.cpuprofile`;
const sizesText = (v: Variant) => `N=${v.sizes.join(',')}`;

function runChild(
  v: Variant,
  plan: BenchPlan,
  dynamodbEndpoint: string | null,
  profileDir: string | null,
): Promise<ChildOutcome> {
  const nodeArgs = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName(v)}`]
    : [];
  const args = [
    ...nodeArgs,
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    ...['--child', v.sizes.join(','), '--source', v.source, '--store', v.store, '--json'],
    ...['--seed', String(plan.seed)],
    ...(dynamodbEndpoint && v.store === 'dynamodb' ? ['--dynamodb-endpoint', dynamodbEndpoint] : []),
    ...(plan.resumeStores.includes(v.store) ? [] : ['--no-resume']),
    ...(plan.keep ? ['--keep'] : []),
    ...(plan.warm ? ['--warm'] : []),
    ...(plan.warm && plan.floor && v.source !== 'floor' ? ['--pair-floor'] : []),
  ];
  const started = performance.now();
  return new Promise((resolve) => {
    // The AWS SDK's notice about Node 20 would repeat in every DynamoDB run's output.
    const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const child = spawn(process.execPath, args, {
      cwd: PROJECT_DIR,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', (err) => resolve({ results: [], error: err.message, process_ms: 0 }));
    child.on('close', (code, signal) => {
      const processMs = Math.round(performance.now() - started);
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{') || l.startsWith('['));
      if (code !== 0 || !line) {
        const error = `child for ${variantName(v)} ${sizesText(v)} exited ${signal ?? code}`;
        resolve({ results: [], error, process_ms: processMs });
        return;
      }
      const parsed = JSON.parse(line) as SizeResult | SizeResult[];
      resolve({ results: [parsed].flat(), error: null, process_ms: processMs });
    });
  });
}

interface BenchPlan {
  sizes: number[];
  imapSizes: number[];
  stores: StoreKind[];
  floor: boolean;
  /** The stores whose Maildir runs are followed by answering every question and resuming. */
  resumeStores: StoreKind[];
  repeats: number;
  seed: number;
  profile: boolean;
  keep: boolean;
  warm: boolean;
}

/**
 * Every variant at every size, smallest first; within a size the floor first. Warm: one
 * series of every size per variant, the floor first, and no IMAP.
 */
function variantsOf(plan: BenchPlan): Variant[] {
  if (plan.warm)
    return [
      ...(plan.floor ? [{ sizes: plan.sizes, source: 'floor' as const, store: 'none' as const }] : []),
      ...plan.stores.map((store) => ({ sizes: plan.sizes, source: 'maildir' as const, store })),
    ];
  return [...new Set([...plan.sizes, ...plan.imapSizes])]
    .sort((a, b) => a - b)
    .flatMap((n) => [
      ...(plan.floor && plan.sizes.includes(n)
        ? [{ sizes: [n], source: 'floor' as const, store: 'none' as const }]
        : []),
      ...(plan.sizes.includes(n)
        ? plan.stores.map((store) => ({ sizes: [n], source: 'maildir' as const, store }))
        : []),
      ...(plan.imapSizes.includes(n)
        ? [{ sizes: [n], source: 'imap' as const, store: 'json' as const }]
        : []),
    ]);
}

function notes(rows: SizeResult[]): string[] {
  const out: string[] = [];
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  for (const r of rows) {
    if (r.source === 'floor') continue;
    const commands = r.commands_by_name ? ` IMAP commands: ${list(r.commands_by_name)}.` : '';
    out.push(
      `- ${variantName(r)} N=${r.n}: mail ${list(r.kinds)}.${commands} Store calls (run only): ${list(r.store_calls)}; ` +
        `writes by collection: ${list(r.store_writes_by_collection)}. Run record at the end: ${r.run_record_kb} KB.`,
    );
    if (r.handled !== r.n)
      out.push(`  - WARNING: ${r.handled} of ${r.n} items accounted for in the run counts.`);
    if (r.error) out.push(`  - run error: ${r.error}`);
  }
  return out;
}

function profiles(rows: SizeResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (!r.profile) continue;
    out.push(
      '',
      `### CPU profile ${variantName(r)} N=${r.n} (${r.profile.total_ms} ms sampled; ${r.profile.file})`,
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
  return out;
}

async function parent(plan: BenchPlan): Promise<number> {
  const profileDir = plan.profile ? await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-prof-')) : null;
  const dynalite = plan.stores.includes('dynamodb') ? await startDynaliteServer() : null;
  const runs: SizeResult[] = [];
  const errors: { sizes: number[]; variant: string; error: string }[] = [];
  const benchStarted = performance.now();
  const variants = variantsOf(plan);
  try {
    // Interleaved: each repeat runs every variant once, so load on a shared machine hits all alike.
    for (let repeat = 1; repeat <= plan.repeats; repeat += 1)
      for (const v of variants) {
        process.stderr.write(`bench: ${repeat}/${plan.repeats} ${variantName(v)} ${sizesText(v)} ... `);
        const outcome = await runChild(v, plan, dynalite?.endpoint ?? null, repeat === 1 ? profileDir : null);
        if (outcome.results.length === 0) {
          process.stderr.write(`failed (${outcome.error ?? 'unknown'})\n`);
          errors.push({ sizes: v.sizes, variant: variantName(v), error: outcome.error ?? 'unknown' });
          continue;
        }
        const [first] = outcome.results;
        if (profileDir && repeat === 1 && (await readdir(profileDir)).includes(profileName(v)))
          first!.profile = await summariseProfile(path.join(profileDir, profileName(v)));
        const done = outcome.results.map((row) => {
          const resumed = row.resume
            ? `, ${row.resume.answers} answers resumed in ${row.resume.wall_s.toFixed(2)} s`
            : '';
          return `${(row.wall_ms / 1000).toFixed(2)} s run${resumed}`;
        });
        process.stderr.write(`${done.join('; ')}, ${(outcome.process_ms / 1000).toFixed(1)} s process\n`);
        runs.push(...outcome.results);
      }
  } finally {
    await dynalite?.stop();
  }
  const totalS = round((performance.now() - benchStarted) / 1000, 1);
  const rows = medians(runs);
  const flat = growth(rows);
  const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);

  const out: string[] = [
    `## Engine benchmark (inbox-triage, offline model, page size ${DEFAULT_PAGE_SIZE})`,
    '',
    `Seed 0x${plan.seed.toString(16)}; Node ${process.version}; ${os.cpus().length} CPU(s); load average ` +
      `${os.loadavg()[0]!.toFixed(1)} at the end; ` +
      (plan.warm
        ? `warm: one child per variant runs every size in one workspace and mailbox, the sizes taking turns, an untimed round then ${WARM_ROUNDS} timed ones ` +
          `(${WARM_TIMED_ITEMS} items a size a round), new mail each run and its questions left to lapse after, the median run of each size kept; ` +
          "each timed run followed by the floor's in the same process: × floor is the ratio of the two series' medians"
        : 'one fresh child process per run') +
      `; ${plan.repeats} run(s) of each ` +
      `variant, interleaved; the median run shown (by platform ms/item) with min–max; total ${totalS} s. ` +
      'Platform ms/item is wall time outside the offline model; for the floor, the bare Strands agent with ' +
      'tools of the same names answering from memory (the mail read before the clock starts). × floor: over ' +
      "the floor's at the same N.",
    '',
    mainTable(rows),
    '',
  ];
  if (rows.some((r) => r.resume))
    out.push(
      '### Resume: every question of the one interrupt answered (decide path), then the run resumed',
      '',
      'Answer: the suggested action when offered, else skip. Round trips: the times a person is asked and the ' +
        'run paused and resumed; one interrupt per unsure item would need one per answer (counted, not driven).',
      '',
      resumeTable(rows),
      '',
    );
  if (flat.length > 0)
    out.push(
      `### Flat growth (target: max / min ≤ ${FLAT_TARGET}×)`,
      '',
      'Platform ms/item at each size, then the same over the floor at that size: the bare agent loop is not ' +
        'flat itself (a small run has more model turns and tool calls per item), so growth beyond its own ' +
        'is what the platform adds.',
      '',
      growthTable(flat, sizes),
      '',
    );
  out.push(...notes(rows), ...profiles(rows));
  for (const e of errors) out.push('', `**${e.variant} N=${e.sizes.join(',')} failed:** ${e.error}`);
  process.stdout.write(`${out.join('\n')}\n`);

  const resultsPath = resultsFile(plan.warm);
  await mkdir(path.dirname(resultsPath), { recursive: true });
  const json = {
    benchmark: 'engine',
    generated_at: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    load_average_1m_at_end: round(os.loadavg()[0]!, 2),
    seed: plan.seed,
    sizes: plan.sizes,
    imap_sizes: plan.imapSizes,
    stores: plan.stores,
    floor: plan.floor,
    resume_stores: plan.resumeStores,
    repeats: plan.repeats,
    warm: plan.warm,
    page_size: DEFAULT_PAGE_SIZE,
    flat_target: FLAT_TARGET,
    total_s: totalS,
    rows,
    flat_growth: flat,
    runs,
    errors,
  };
  // Formatted like the rest of the repository, so `npm run format:check` stays green after a bench.
  // Imported here, not at the top: the children measure memory and should not carry prettier.
  const { format, resolveConfig } = await import('prettier');
  const config = (await resolveConfig(resultsPath)) ?? {};
  await writeFile(resultsPath, await format(JSON.stringify(json), { ...config, filepath: resultsPath }));
  process.stderr.write(`bench: wrote ${path.relative(PROJECT_DIR, resultsPath)}\n`);
  return errors.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------

function parseSizes(flag: string, text: string): number[] {
  const sizes = text.split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((s) => !Number.isInteger(s) || s <= 0))
    throw new Error(`${flag} wants positive integers separated by commas, got "${text}"`);
  return sizes;
}

function parseStores(text: string): StoreKind[] {
  const stores = text.split(',').map((s) => s.trim());
  const unknown = stores.find((s) => !STORE_KINDS.includes(s as StoreKind));
  if (unknown !== undefined)
    throw new Error(`--stores wants some of ${STORE_KINDS.join(', ')}, got "${unknown}"`);
  return stores as StoreKind[];
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      'imap-sizes': { type: 'string' },
      stores: { type: 'string' },
      repeats: { type: 'string' },
      'no-floor': { type: 'boolean', default: false },
      'no-resume': { type: 'boolean', default: false },
      'resume-stores': { type: 'string' },
      seed: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      child: { type: 'string' },
      source: { type: 'string', default: 'maildir' },
      store: { type: 'string', default: 'json' },
      'dynamodb-endpoint': { type: 'string' },
      json: { type: 'boolean', default: false },
      warm: { type: 'boolean', default: false },
      'pair-floor': { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const seed = values.seed !== undefined ? Number(values.seed) : DEFAULT_SEED;
  if (!Number.isInteger(seed)) throw new Error(`--seed wants an integer, got "${values.seed}"`);
  if (values.child !== undefined) {
    const sizes = parseSizes('--child', values.child);
    const source = values.source;
    if (source !== 'maildir' && source !== 'imap' && source !== 'floor')
      throw new Error(`--source wants maildir, imap or floor, got "${source}"`);
    if (sizes.length > 1 && !values.warm)
      throw new Error('--child takes one size; several are a --warm series');
    const [store] = source === 'floor' ? (['none'] as const) : parseStores(values.store);
    const opts: RunOptions = {
      source,
      store: store!,
      dynamodbEndpoint: values['dynamodb-endpoint'],
      resume: !values['no-resume'],
      keep: values.keep,
      warm: values.warm,
      pairFloor: values['pair-floor'],
    };
    const results = values.warm
      ? await measureSeries(sizes, seed, opts)
      : [await measure(sizes[0]!, seed, opts)];
    const json = values.warm ? JSON.stringify(results) : JSON.stringify(results[0]);
    process.stdout.write(values.json ? `${json}\n` : `${mainTable(results)}\n`);
    return 0;
  }
  const sizes = values.sizes !== undefined ? parseSizes('--sizes', values.sizes) : DEFAULT_SIZES;
  const imapText = values['imap-sizes'];
  const imapSizes =
    imapText === undefined ? DEFAULT_IMAP_SIZES : imapText === '' ? [] : parseSizes('--imap-sizes', imapText);
  const stores = values.stores !== undefined ? parseStores(values.stores) : [...STORE_KINDS];
  const repeats = values.repeats !== undefined ? Number(values.repeats) : DEFAULT_REPEATS;
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new Error(`--repeats wants a positive integer, got "${values.repeats}"`);
  return parent({
    sizes,
    imapSizes,
    stores,
    floor: !values['no-floor'],
    resumeStores: values['no-resume']
      ? []
      : values['resume-stores'] !== undefined
        ? parseStores(values['resume-stores'])
        : DEFAULT_RESUME_STORES,
    repeats,
    seed,
    profile: values.profile,
    keep: values.keep,
    warm: values.warm,
  });
}

try {
  process.exitCode = await main();
} catch (error) {
  // Bad flags: one line, nothing run or written.
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

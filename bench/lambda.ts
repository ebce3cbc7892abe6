/**
 * Lambda benchmark: bundles each lambdas/*.ts as CDK does (esbuild: bundle, minify, ESM,
 * node22; AWS SDK left to the runtime) and self-contained (SDK bundled too), checks each
 * against the 3 MB budget, times a cold import of each bundle in a fresh `node` (median),
 * then runs a scheduled run through the handlers per size (a child process each: dynalite +
 * mocked AWS, see lambda-loop.ts) and estimates the AWS cost per 1,000 items.
 *
 *   npm run bench:lambda                       # sizes 10,50; 5 import samples
 *   npm run bench:lambda -- --sizes 50 --samples 3
 *   tsx bench/lambda.ts --child 50             # one size, in this process (what the parent spawns)
 *   tsx bench/lambda.ts --report-only          # re-render lambda.md from lambda.json
 *
 * Prints a markdown report; writes bench/results/lambda.json and bench/results/lambda.md.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { format, resolveConfig } from 'prettier';
import { costFor, memorySizes, PRICE_NOTES, PRICES } from './lambda-cost.ts';
import { runLoop, type LoopResult } from './lambda-loop.ts';
import { renderReport, type BundleRow, type Report } from './lambda-report.ts';
import { BUNDLE_ALIASES } from '../lib/bundle-stubs/aliases.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const PROJECT_DIR = path.dirname(BENCH_DIR);
/** Inside node_modules so a bundle that leaves @aws-sdk external still resolves it. */
const OUT_DIR = path.join(PROJECT_DIR, 'node_modules', '.cache', 'handoff-bench-lambda');
/** As lib/functions.ts bundles: imapflow's logger and proxy packages are stubs (lib/bundle-stubs). */
const BUNDLE_STUBS = Object.fromEntries(
  Object.entries(BUNDLE_ALIASES).map(([pkg, stub]) => [pkg, path.join(PROJECT_DIR, stub)]),
);
const BUDGET_BYTES = 3 * 1024 * 1024;
const BANNER =
  "import { createRequire as __handoffCreateRequire } from 'node:module'; const require = __handoffCreateRequire(import.meta.url);";
/** As lib/functions.ts bundles: playwright-core (the AgentCore Browser) is never shipped to Lambda. */
const VARIANTS = {
  deployed: ['@aws-sdk/*', 'playwright-core'],
  self_contained: ['playwright-core'],
} as const;
type Variant = keyof typeof VARIANTS;

/** Placeholder values for every variable any function reads at module scope (nothing is contacted). */
const IMPORT_ENV: Record<string, string> = {
  HANDOFF_TABLE: 'handoff',
  USE_DYNAMODB: 'true',
  AWS_REGION: 'us-east-1',
  EVENT_BUS_NAME: 'handoff',
  NOTIFY_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:handoff',
  LINK_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:link',
  API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:api',
  WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hook',
  UI_BASE_URL: 'https://handoff.example.com',
  SCHEDULE_GROUP_NAME: 'handoff',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
  TRIGGER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:trigger',
  HANDOFF_STATE_DIR: path.join(os.tmpdir(), 'handoff-bench-lambda'),
  HANDOFF_MODEL_PROVIDER: 'local',
};

async function bundleAll(): Promise<
  Map<string, Record<Variant, { file: string; bytes: number; gzip: number }>>
> {
  const entries = (await readdir(path.join(PROJECT_DIR, 'lambdas'))).filter((f) => f.endsWith('.ts')).sort();
  const out = new Map<string, Record<Variant, { file: string; bytes: number; gzip: number }>>();
  await rm(OUT_DIR, { recursive: true, force: true });
  for (const [variant, external] of Object.entries(VARIANTS) as [Variant, readonly string[]][]) {
    const outdir = path.join(OUT_DIR, variant);
    await build({
      entryPoints: entries.map((e) => path.join(PROJECT_DIR, 'lambdas', e)),
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      external: [...external],
      alias: BUNDLE_STUBS,
      banner: { js: BANNER },
      logLevel: 'error',
    });
    for (const entry of entries) {
      const name = entry.replace(/\.ts$/, '');
      const file = path.join(outdir, `${name}.mjs`);
      const code = await readFile(file);
      const row = out.get(name) ?? ({} as Record<Variant, { file: string; bytes: number; gzip: number }>);
      row[variant] = { file, bytes: code.length, gzip: gzipSync(code).length };
      out.set(name, row);
    }
  }
  return out;
}

/** Milliseconds to import `file` in a fresh node (measured inside the child), or null if it failed. */
function importOnce(file: string): Promise<number | null> {
  const code = `const t = performance.now(); const m = await import(${JSON.stringify(file)}); if (typeof m.handler !== 'function') process.exit(3); process.stdout.write(String(performance.now() - t));`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '-e', code], {
      cwd: path.dirname(file),
      env: { PATH: process.env.PATH ?? '', ...IMPORT_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => {
      if (status !== 0)
        process.stderr.write(`import of ${file} failed (${status}): ${stderr.split('\n')[0]}\n`);
      resolve(status === 0 ? Number(stdout) : null);
    });
  });
}

async function medianImport(file: string, samples: number): Promise<number | null> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const ms = await importOnce(file);
    if (ms === null) return null;
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}

function runChild(n: number): Promise<LoopResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(n)],
      {
        cwd: PROJECT_DIR,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('close', (status) => {
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      if (status !== 0 || !line) reject(new Error(`the run over ${n} messages exited ${status}`));
      else resolve(JSON.parse(line) as LoopResult);
    });
  });
}

/** Writes lambda.json and lambda.md (formatted as the repository formats them); returns the markdown. */
async function writeResults(report: Report): Promise<string> {
  const dir = path.join(BENCH_DIR, 'results');
  await mkdir(dir, { recursive: true });
  const write = async (name: string, text: string, parser: 'json' | 'markdown') => {
    const file = path.join(dir, name);
    const formatted = await format(text, { ...(await resolveConfig(file)), parser, filepath: file });
    await writeFile(file, formatted);
    return formatted;
  };
  await write('lambda.json', JSON.stringify(report, null, 2), 'json');
  return write('lambda.md', renderReport(report), 'markdown');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      sizes: { type: 'string', default: '10,50' },
      samples: { type: 'string', default: '5' },
      'report-only': { type: 'boolean', default: false },
    },
  });
  if (values['report-only']) {
    // Re-render lambda.md from lambda.json (after a change to the report, without re-measuring).
    const saved = JSON.parse(
      await readFile(path.join(BENCH_DIR, 'results', 'lambda.json'), 'utf8'),
    ) as Report;
    process.stdout.write(await writeResults(saved));
    return;
  }
  if (values.child !== undefined) {
    process.stdout.write(`${JSON.stringify(await runLoop(Number(values.child)))}\n`);
    process.exit(0); // mocked clients and sockets may keep the loop alive
  }
  const sizes = values.sizes.split(',').map(Number);
  const samples = Number(values.samples);

  process.stderr.write('Bundling lambdas/*.ts ...\n');
  const bundles = await bundleAll();
  const rows: BundleRow[] = [];
  for (const [name, variants] of bundles) {
    process.stderr.write(`Cold import of ${name} (${samples} samples per variant) ...\n`);
    rows.push({
      name,
      deployed: {
        bytes: variants.deployed.bytes,
        gzip: variants.deployed.gzip,
        pass: variants.deployed.bytes <= BUDGET_BYTES,
      },
      self_contained: {
        bytes: variants.self_contained.bytes,
        gzip: variants.self_contained.gzip,
        pass: variants.self_contained.bytes <= BUDGET_BYTES,
      },
      import_ms: {
        deployed: await medianImport(variants.deployed.file, samples),
        self_contained: await medianImport(variants.self_contained.file, samples),
      },
    });
  }

  const runs: LoopResult[] = [];
  for (const n of sizes) {
    process.stderr.write(`Scheduled run over ${n} messages through the handlers ...\n`);
    runs.push(await runChild(n));
  }
  const memory = await memorySizes(path.join(PROJECT_DIR, 'lib', 'functions.ts'));
  const largest = runs.reduce((a, b) => (b.items > a.items ? b : a));
  const cost = costFor(largest, memory.sizes, 1000);
  const report: Report = {
    generated_at: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      loadavg_1m: Number(os.loadavg()[0]!.toFixed(2)),
    },
    budget_bytes: BUDGET_BYTES,
    import_samples: samples,
    bundles: rows,
    runs,
    memory_mb: memory.sizes,
    memory_from: memory.from,
    cost_per_1000_items: {
      from_run_of: largest.items,
      lines: cost,
      total_usd: cost.reduce((s, l) => s + l.usd, 0),
    },
    prices: Object.fromEntries(
      Object.entries(PRICES).map(([k, v]) => [k, { usd: v, note: PRICE_NOTES[k as keyof typeof PRICES] }]),
    ),
  };
  process.stdout.write(await writeResults(report));
  if (rows.some((r) => !r.deployed.pass)) process.exitCode = 1;
}

await main();

/**
 * Lambda benchmark: bundles each lambdas/*.ts as the stack does (lib/bundle.ts) and
 * self-contained (SDK bundled too), checks what a cold start loads against the 1.2 MB budget,
 * times cold imports next to the floor (lambda-bundles.ts), then runs a scheduled run through
 * the handlers per size (a child process each: dynalite + mocked AWS, see lambda-loop.ts)
 * and estimates the AWS cost per 1,000 items; then the load simulation (lambda-load.ts: writes
 * per partition key over 20 workspaces × 5 workflows × 200 items).
 *
 *   npm run bench:lambda                       # sizes 10,50; 7 import samples; load 20x5x200
 *   npm run bench:lambda -- --sizes 50 --samples 3 --load 20x5x20+answers  # every question answered
 *   tsx bench/lambda.ts --child-load 20x5x200  # the load simulation alone, in this process
 *   tsx bench/lambda.ts --child 50             # one size, in this process (what the parent spawns)
 *   HANDOFF_BENCH_TRACE=1 tsx bench/lambda.ts --child 50  # also each DynamoDB request and its keys, on stderr
 *   tsx bench/lambda.ts --report-only          # re-render lambda.md from lambda.json
 *
 * Prints a markdown report; writes bench/results/lambda.json and bench/results/lambda.md.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { costFor, memorySizes, PRICE_NOTES, PRICES } from './lambda-cost.ts';
import { measureBundles } from './lambda-bundles.ts';
import { runLoop, type LoopResult } from './lambda-loop.ts';
import { DEFAULT_LOAD, parseShape, runLoad, type LoadResult } from './lambda-load.ts';
import { renderReport, type Report } from './lambda-report.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const PROJECT_DIR = path.dirname(BENCH_DIR);

function runChild<T = LoopResult>(n: number | string, flag = '--child'): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), flag, String(n)],
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
      else resolve(JSON.parse(line) as T);
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

const HELP = `npm run bench:lambda -- [options]
  --sizes 10,50          the scheduled runs' sizes (messages)
  --samples 7            cold imports of each bundle (the median is shown)
  --load 20x5x200        the load simulation: workspaces x workflows x items (+answers: answer every question)
  --report-only          re-render bench/results/lambda.md from lambda.json
  HANDOFF_BENCH_DYNAMODB=local   run on DynamoDB Local (Java) instead of dynalite
One run, in this process: --child N, or --child-load SHAPE`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      child: { type: 'string' },
      'child-load': { type: 'string' },
      load: { type: 'string', default: DEFAULT_LOAD },
      sizes: { type: 'string', default: '10,50' },
      samples: { type: 'string', default: '7' },
      'report-only': { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
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
  if (values['child-load'] !== undefined) {
    process.stdout.write(`${JSON.stringify(await runLoad(parseShape(values['child-load'])))}\n`);
    process.exit(0);
  }
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error(`--sizes wants positive integers separated by commas, got "${values.sizes}"`);
  parseShape(values.load); // refuse a bad --load before minutes of measuring
  const samples = Number(values.samples);
  if (!Number.isInteger(samples) || samples < 1)
    throw new Error(`--samples wants a positive integer, got "${values.samples}"`);

  const bundles = await measureBundles(samples);

  const runs: LoopResult[] = [];
  for (const n of sizes) {
    process.stderr.write(`Scheduled run over ${n} messages through the handlers ...\n`);
    runs.push(await runChild(n));
  }
  process.stderr.write(`Load simulation ${values.load} (workspaces x workflows x items) on dynalite ...\n`);
  const load = await runChild<LoadResult>(values.load, '--child-load');
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
    bundles,
    runs,
    load,
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
  if (bundles.functions.some((r) => !r.deployed.pass) || !load.pass) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  // Bad flags: one line, nothing measured or written.
  process.stderr.write(`bench:lambda: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

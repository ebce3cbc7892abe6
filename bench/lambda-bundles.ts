/**
 * The bundle half of `npm run bench:lambda`: each lambdas/*.ts bundled as the stack ships it
 * (lib/bundle.ts), what a cold start loads checked against the budget, and its cold import
 * timed in a fresh `node` next to the floor (bench/lambda-floor.ts: the Strands Agent and the
 * DynamoDB client alone, bundled and imported the same way). Samples are interleaved: one
 * import of every bundle per round, so a busy moment of the machine hits them all alike.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundleEntry, handlerEntry, LAMBDA_EXTERNALS, loadedAtImport, PROJECT_ROOT } from '../lib/bundle.ts';

/** What a cold start may load (index.mjs and the chunks it imports statically), minified. */
export const BUDGET_BYTES = 1.2 * 1024 * 1024;
export const FLOOR = 'floor';

/** "deployed" leaves the AWS SDK to the Lambda runtime (as the stack does); "self-contained" bundles it too. */
const VARIANTS = {
  deployed: LAMBDA_EXTERNALS,
  self_contained: LAMBDA_EXTERNALS.filter((e) => !e.startsWith('@aws-sdk')),
} as const;
type Variant = keyof typeof VARIANTS;

export interface BundleSize {
  /** Loaded by a cold start: index.mjs and its static chunks. */
  bytes: number;
  gzip: number;
  /** Chunks loaded on first use. */
  lazy_bytes: number;
  pass: boolean;
}

/** Milliseconds of `await import(index.mjs)` in a fresh node; null when it failed. */
export interface ImportTiming {
  median: number;
  min: number;
  max: number;
}

export interface BundleRow {
  name: string;
  deployed: BundleSize;
  self_contained: BundleSize;
  import_ms: Record<Variant, ImportTiming | null>;
}

export interface BundleReport {
  budget_bytes: number;
  samples: number;
  floor: BundleRow;
  functions: BundleRow[];
}

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
  HANDOFF_SPEECH_PROVIDER: 'aws', // as the stack sets it for the api function
  HANDOFF_STATE_DIR: path.join(os.tmpdir(), 'handoff-bench-lambda'),
  HANDOFF_MODEL_PROVIDER: 'local',
};

interface Built {
  name: string;
  index: Record<Variant, string>;
  size: Record<Variant, BundleSize>;
}

/** `files` as esbuild's metafile names them (relative to the project root). */
async function sizeOf(files: string[], bytes: number, lazy: number): Promise<BundleSize> {
  let gzip = 0;
  for (const file of files) gzip += gzipSync(await readFile(path.resolve(PROJECT_ROOT, file))).length;
  return { bytes, gzip, lazy_bytes: lazy, pass: bytes <= BUDGET_BYTES };
}

async function buildOne(name: string, entry: string, root: string): Promise<Built> {
  const index = {} as Record<Variant, string>;
  const size = {} as Record<Variant, BundleSize>;
  for (const [variant, external] of Object.entries(VARIANTS) as [Variant, readonly string[]][]) {
    const outdir = path.join(root, variant, name);
    const loaded = loadedAtImport(await bundleEntry(entry, outdir, external));
    index[variant] = path.join(outdir, 'index.mjs');
    size[variant] = await sizeOf(loaded.files, loaded.bytes, loaded.lazyBytes);
  }
  return { name, index, size };
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

function timing(samples: (number | null)[]): ImportTiming | null {
  if (samples.some((s) => s === null)) return null;
  const sorted = (samples as number[]).toSorted((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: Math.round(median), min: Math.round(sorted[0]!), max: Math.round(sorted.at(-1)!) };
}

/** Bundles every function and the floor, then times `samples` cold imports of each (interleaved). */
export async function measureBundles(samples: number): Promise<BundleReport> {
  // A directory of its own (other checkouts may bench at once), with node_modules beside it
  // so "deployed" bundles find the AWS SDK as the Lambda runtime would provide it.
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-bench-lambda-'));
  try {
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    const names = (await readdir(path.join(PROJECT_ROOT, 'lambdas')))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    process.stderr.write(`Bundling lambdas/*.ts and the floor into ${root} ...\n`);
    const built: Built[] = [await buildOne(FLOOR, path.join(PROJECT_ROOT, 'bench', 'lambda-floor.ts'), root)];
    for (const name of names) built.push(await buildOne(name, handlerEntry(name), root));

    const times = new Map<string, Record<Variant, (number | null)[]>>(
      built.map((b) => [b.name, { deployed: [], self_contained: [] }]),
    );
    for (let round = 1; round <= samples; round++) {
      process.stderr.write(`Cold imports, round ${round} of ${samples} ...\n`);
      for (const b of built)
        for (const variant of Object.keys(VARIANTS) as Variant[])
          times.get(b.name)![variant].push(await importOnce(b.index[variant]));
    }
    const rows: BundleRow[] = built.map((b) => ({
      name: b.name,
      deployed: b.size.deployed,
      self_contained: b.size.self_contained,
      import_ms: {
        deployed: timing(times.get(b.name)!.deployed),
        self_contained: timing(times.get(b.name)!.self_contained),
      },
    }));
    return { budget_bytes: BUDGET_BYTES, samples, floor: rows[0]!, functions: rows.slice(1) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const spread = (t: ImportTiming | null) => (t === null ? 'failed' : `${t.median} ms (${t.min}–${t.max})`);
const overFloor = (t: ImportTiming | null, floor: ImportTiming | null) =>
  t === null || floor === null
    ? ''
    : `${t.median - floor.median >= 0 ? '+' : ''}${t.median - floor.median} ms`;

/** The bundle section of lambda.md. */
export function renderBundles(b: BundleReport): string[] {
  const out = [
    `## Bundles (lib/bundle.ts: esbuild, minify, ESM, node22, code splitting; budget ${mb(b.budget_bytes)} loaded at import)`,
    '',
    '"At import" is index.mjs and the chunks it imports statically (what a cold start loads); "lazy" is the chunks',
    'loaded on first use (model providers, the mail adapters and parser, YAML). "deployed" leaves `@aws-sdk/*` to the',
    'Lambda runtime (as the stack does; here it is loaded from node_modules); "self-contained" bundles it too.',
    `Cold import: \`await import(index.mjs)\` in a fresh \`node\`, median (min–max) of ${b.samples}, every bundle imported once per round.`,
    'The floor: the Strands Agent and a DynamoDB client alone (bench/lambda-floor.ts), bundled and imported the same way.',
    '',
    '| function | at import | gzip | lazy | budget | cold import (deployed) | over the floor | self-contained at import | cold import (self-contained) |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const row of [b.floor, ...b.functions]) {
    const isFloor = row === b.floor;
    out.push(
      `| ${isFloor ? '**floor**' : row.name} | ${mb(row.deployed.bytes)} | ${mb(row.deployed.gzip)} | ${mb(row.deployed.lazy_bytes)} | ${isFloor ? '' : row.deployed.pass ? 'PASS' : 'FAIL'} | ${spread(row.import_ms.deployed)} | ${isFloor ? '' : overFloor(row.import_ms.deployed, b.floor.import_ms.deployed)} | ${mb(row.self_contained.bytes)} | ${spread(row.import_ms.self_contained)} |`,
    );
  }
  return out;
}

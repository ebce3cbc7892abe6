/**
 * This checkout's engine against another's, in one warm process, runs interleaved: what a
 * change costs per item, measured side by side so the machine's load falls on both alike.
 * Both checkouts' `bench/engine-run.ts` are imported (each its own modules); each warms up
 * on four 20-item runs, then the two take turns (which goes first alternates) over the same
 * seeded mail. Prints platform ms per item, median with quartiles, for each.
 *
 *   git worktree add ../before HEAD~1 && ln -s "$PWD/node_modules" ../before/node_modules
 *   npm run bench:compare -- --other ../before                # 10 items, 150 runs each
 *   npm run bench:compare -- --other ../before --size 100 --runs 20
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { measure as Measure, StoreKind } from './engine-run.ts';
import { benchFlags, refuseFlag, round, wholeNumberFlag } from './instruments.ts';

const USAGE = `npm run bench:compare -- --other DIR [options]
  --other DIR     the other checkout (its node_modules in place)
  --size 10       items per run
  --runs 150      runs of each checkout, interleaved
  --store json    json or memory`;

function refuse(message: string): never {
  return refuseFlag('bench:compare', message);
}

/** The quartiles and median of `values`, rounded. */
function quartiles(values: number[]): { p25: number; median: number; p75: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.floor((sorted.length - 1) * p)]!, 3);
  return { p25: at(0.25), median: at(0.5), p75: at(0.75) };
}

async function main(): Promise<void> {
  const values = benchFlags(
    'bench:compare',
    () =>
      parseArgs({
        options: {
          other: { type: 'string' },
          size: { type: 'string', default: '10' },
          runs: { type: 'string', default: '150' },
          store: { type: 'string', default: 'json' },
          help: { type: 'boolean', default: false },
        },
      }).values,
  );
  if (values.help) return console.log(USAGE);
  if (values.other === undefined) refuse('--other DIR is required: the checkout to compare with');
  const size = wholeNumberFlag('bench:compare', 'size', values.size);
  const runs = wholeNumberFlag('bench:compare', 'runs', values.runs);
  if (values.store !== 'json' && values.store !== 'memory')
    refuse(`--store wants json or memory, got ${JSON.stringify(values.store)}`);
  const store = values.store as StoreKind;
  const other = path.resolve(values.other, 'bench', 'engine-run.ts');
  const sides: { name: string; measure: typeof Measure; ms: number[] }[] = [
    { name: 'this checkout', measure: (await import('./engine-run.ts')).measure, ms: [] },
    { name: path.resolve(values.other), measure: (await import(other)).measure, ms: [] },
  ];
  const options = { source: 'maildir', store, resume: false, keep: false } as const;
  for (let i = 0; i < 4; i += 1) for (const side of sides) await side.measure(20, 7 + i, options);
  for (let i = 0; i < runs; i += 1)
    for (const side of i % 2 === 0 ? sides : [...sides].reverse())
      side.ms.push((await side.measure(size, 1592598565, options)).platform_ms_per_item);
  console.log(`${runs} runs of ${size} items each, ${store} store, interleaved; platform ms per item`);
  for (const side of sides) {
    const q = quartiles(side.ms);
    console.log(`${side.name}: median ${q.median} (quartiles ${q.p25}–${q.p75})`);
  }
}

await main();

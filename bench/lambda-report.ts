/** The markdown report of bench/lambda.ts. */
import { renderBundles, type BundleReport } from './lambda-bundles.ts';
import type { CostLine } from './lambda-cost.ts';
import type { FunctionName, LoopResult } from './lambda-loop.ts';
import type { LoadResult } from './lambda-load.ts';

export interface Report {
  generated_at: string;
  machine: { node: string; cpus: number; loadavg_1m: number };
  bundles: BundleReport;
  runs: LoopResult[];
  /** The load simulation (absent from reports made before it). */
  load?: LoadResult;
  memory_mb: Record<FunctionName, number>;
  memory_from: string;
  cost_per_1000_items: { from_run_of: number; lines: CostLine[]; total_usd: number };
  prices: Record<string, { usd: number; note: string }>;
}

const num = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
const usd = (value: number) => `$${value < 0.01 ? value.toFixed(6) : value.toFixed(4)}`;

/** What a run measured, as named rows. */
function metrics(run: LoopResult, memory: Record<FunctionName, number>): [string, number][] {
  const fns = Object.entries(run.functions) as [FunctionName, { invocations: number; ms: number }][];
  return [
    ['questions asked', run.decisions],
    ['DynamoDB read requests', run.dynamodb.reads],
    ['DynamoDB write requests', run.dynamodb.writes],
    ['DynamoDB read units (RRU)', run.dynamodb.rru],
    ['DynamoDB write units (WRU)', run.dynamodb.wru],
    ['failed conditional writes', run.dynamodb.failed_conditions],
    ['EventBridge events', run.eventbridge_events],
    ['SNS messages', run.sns_publishes],
    ['KMS decrypts', run.kms_decrypts],
    ['IMAP round trips', run.imap_round_trips],
    ['Scheduler invocations', run.scheduler_invocations],
    ['API Gateway requests', run.api_requests],
    ['Lambda invocations', fns.reduce((s, [, u]) => s + u.invocations, 0)],
    ['Lambda time (ms)', Math.round(fns.reduce((s, [, u]) => s + u.ms, 0))],
    ['Lambda GB-s', fns.reduce((s, [fn, u]) => s + (u.ms / 1000) * (memory[fn] / 1024), 0)],
  ];
}

export function renderReport(r: Report): string {
  const out: string[] = [];
  const push = (...lines: string[]) => out.push(...lines);
  push(
    '# Lambda benchmark',
    '',
    `${r.generated_at} · Node ${r.machine.node} here (Lambda runs Node 22) · ${r.machine.cpus} CPUs · load average ${r.machine.loadavg_1m} (other work on the machine inflates every time below)`,
    '',
  );
  push(...renderBundles(r.bundles));

  const sorted = [...r.runs].sort((a, b) => a.items - b.items);
  const large = sorted.at(-1)!;
  const rows = sorted.map((run) => metrics(run, r.memory_mb));
  push(
    '',
    '## Per run: one scheduled run through the handlers',
    '',
    'Trigger → executor → every question answered through the decision page (GET + POST each) → resume → completer;',
    `DynamoDB is ${process.env.HANDOFF_BENCH_DYNAMODB === 'local' ? 'DynamoDB Local (HANDOFF_BENCH_DYNAMODB=local; transactions)' : 'dynalite (no transactions: a commit is one request per conditional write)'} (every request counted with its consumed capacity), EventBridge/SNS/Scheduler/KMS mocked, the mail on a local Dovecot over IMAP, the offline model.`,
    'Each run is the second in a fresh table (a 3-message run warms the handlers first). Per item = the run / its messages.',
    '',
    `| | ${sorted.map((s) => `run of ${s.items}`).join(' | ')} | ${sorted.map((s) => `per item (${s.items})`).join(' | ')} |`,
    `|---|${sorted.map(() => '---:|').join('')}${sorted.map(() => '---:|').join('')}`,
  );
  rows[0]!.forEach(([label], i) => {
    const values = rows.map((row) => row[i]![1]);
    const perItem = values.map((v, k) => v / sorted[k]!.items);
    push(`| ${label} | ${values.map(num).join(' | ')} | ${perItem.map(num).join(' | ')} |`);
  });

  push(
    '',
    `## By function (run of ${large.items})`,
    '',
    '| function | memory | invocations | time | GB-s | DynamoDB reads | DynamoDB writes |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [fn, use] of Object.entries(large.functions) as [
    FunctionName,
    { invocations: number; ms: number },
  ][]) {
    const db = large.dynamodb_by_function[fn] ?? { reads: 0, writes: 0 };
    const gbs = (use.ms / 1000) * (r.memory_mb[fn] / 1024);
    push(
      `| ${fn} | ${r.memory_mb[fn]} MB | ${use.invocations} | ${Math.round(use.ms)} ms | ${gbs.toFixed(3)} | ${db.reads} | ${db.writes} |`,
    );
  }
  const api = large.functions.api;
  const apiDb = large.dynamodb_by_function.api;
  if (api && apiDb)
    push(
      '',
      `The API function made ${num((apiDb.reads + apiDb.writes) / api.invocations)} DynamoDB requests per HTTP request ` +
        `(${large.decisions} questions, each opened and answered); see \`dynamodb_commands\` in lambda.json.`,
    );
  push('', `Memory sizes from ${r.memory_from}.`);
  if (r.load) push(...renderLoad(r.load));

  const c = r.cost_per_1000_items;
  push(
    '',
    `## Estimated AWS cost per 1,000 items (in runs of ${c.from_run_of})`,
    '',
    '| | quantity | unit | USD |',
    '|---|---:|---|---:|',
    ...c.lines.map((l) => `| ${l.item} | ${num(l.quantity)} | ${l.unit} | ${usd(l.usd)} |`),
    `| **total** | | | **${usd(c.total_usd)}** |`,
    '',
    '## Prices assumed (us-east-1 list prices, USD, free tiers ignored)',
    '',
    ...Object.values(r.prices).map((p) => `- ${p.note}`),
    '',
    '## What this leaves out',
    '',
    '- Model cost and latency: the offline model answers in microseconds; with Bedrock the executor and resume time is',
    '  mostly waiting on the model (billed as Lambda GB-s at their 1024 MB) plus the model tokens themselves.',
    '- Network: dynalite is on localhost; real DynamoDB adds a few ms per request to every function.',
    '- Cold starts: init time (the cold import above, billed since Aug 2025) and the Secrets Manager reads a cold start makes.',
    '- Reads per run include Queries of whole collections (the rules, for one); they grow with the table, not the run. Pending decisions and running runs are read through the status index.',
    '- CloudWatch Logs, the DLQ, alarms, data transfer and storage.',
    '',
  );
  return out.join('\n');
}

const pct = (share: number) => `${(share * 100).toFixed(2)}%`;

/** The load simulation's section: writes per partition key, the hottest key's share against the target. */
function renderLoad(load: LoadResult): string[] {
  const { workspaces, workflows, items } = load.shape;
  return [
    '',
    `## Load: ${workspaces} workspaces × ${workflows} workflows × ${items} items${load.shape.answer ? ', every question answered' : ''}, writes per partition key`,
    '',
    'Each workspace on its own store over one table on dynalite; each workflow one run over its own Maildir through the engine',
    `(the offline model), ${load.shape.answer ? 'every question answered through `decide` (which resumes the run)' : 'the runs left paused on their questions (`--load ...+answers` answers them)'}. Every write request is taken apart`,
    'into the items it writes (a batch or a transaction counts each), counted by partition key and by the index keys the items',
    'carry (bench/partition-writes.ts).',
    '',
    `Measured ${load.measured_at}: ${load.runs} runs, ${load.items} items, ${load.questions} questions, ${load.runs_not_completed} runs not completed, ${load.wall_s} s;`,
    `${load.write_requests} write requests, ${load.item_writes} item writes (${num(load.item_writes_per_item)} per item) over ${load.partition_keys} partition keys.`,
    '',
    '| partition key | item writes | share |',
    '|---|---:|---:|',
    ...load.hottest.map((k) => `| \`${k.key}\` | ${k.writes} | ${pct(k.share)} |`),
    '',
    `**Hottest key: ${pct(load.hottest[0]?.share ?? 0)} of item writes (target ≤ ${pct(load.target)}): ${load.pass ? 'PASS' : 'FAIL'}.**`,
    `The same writes keyed as before workspaces (\`pk\` = collection): \`${load.hottest_before.key}\` took ${pct(load.hottest_before.share)}.`,
    load.hottest_index
      ? `Index keys: the hottest, \`${load.hottest_index.key}\`, took ${pct(load.hottest_index.share)} of the index writes.`
      : '',
  ];
}

/**
 * Offline model accuracy: does the stand-in model fail toward asking on mail it was not
 * tuned on? Mail comes from an independent generator (bench/offline/mail.ts: its own
 * phrasing, senders and subjects, each labelled with what a careful person would accept
 * under the inbox-triage instructions) and runs through the REAL engine (startRun, the
 * gate, the offline model) on a temp Maildir and JSON-file store, one run per seed.
 *
 * A wrong unasked action is an item the model acted on (decided_by model) with an action
 * the label does not accept. Asking is never wrong; it only costs the person a question.
 *
 *   npm run bench:offline                              # seeds 1-5, 200 messages each
 *   npm run bench:offline -- --seeds 7,8 --count 50 --dry-run   # print only, write no results
 *
 * Prints a table per kind and the totals (with the bar: wrong unasked actions <= 1% of the
 * items of every seed; exit code 0 either way) and writes bench/results/offline-accuracy.{json,md}.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { listAudit } from '../shared/audit/audit.ts';
import { loadEnv } from '../shared/config/env.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { generateLabelledMail, type Kind, type Labelled } from './offline/mail.ts';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const WORKFLOW_ID = 'inbox-triage';
const BAR = 0.01;

interface Outcome {
  kind: Kind;
  /** The model's action when it acted unasked, else null (asked). */
  acted: string | null;
  right: boolean;
  subject: string;
  from: string;
}

interface Tally {
  items: number;
  asked: number;
  correct: number;
  wrong: number;
}

const key = (id: string) => id.replace(/^<|>$/g, '').toLowerCase();

/** One seed through the real engine: what happened to each message. */
async function runSeed(seed: number, count: number): Promise<Outcome[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-offline-bench-'));
  try {
    const maildir = path.join(root, 'Maildir');
    const stateDir = path.join(root, 'state');
    const store = new JsonFileStore(stateDir);
    const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
    const deps = engineFromEnv(env, { store, notifier: { notify: async () => {} }, emit: () => {} });
    await saveWorkflow(store, parseWorkflow(demoWorkflowYaml(maildir), `${WORKFLOW_ID}.yaml`));
    const { mail } = generateLabelledMail(seed, count);
    await writeMaildir(
      maildir,
      mail.map((m) => m.spec),
    );
    const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: `seed ${seed}` });
    const acted = new Map<string, string>();
    for (const e of await listAudit(store, { runId: run.id }))
      if (e.item_id !== null && e.decided_by === 'model' && e.action) acted.set(key(e.item_id), e.action);
    const asked = new Set((await listPending(store)).map((d) => key(d.item_id)));
    return mail.map((m: Labelled) => {
      const id = key(m.spec.messageId);
      const action = acted.get(id) ?? null;
      if (action === null && !asked.has(id))
        throw new Error(`seed ${seed}: ${id} was neither acted on nor asked`);
      return {
        kind: m.kind,
        acted: action,
        right: action !== null && m.accept.includes(action),
        subject: m.spec.subject,
        from: m.spec.from,
      };
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function tally(outcomes: readonly Outcome[]): Tally {
  return {
    items: outcomes.length,
    asked: outcomes.filter((o) => o.acted === null).length,
    correct: outcomes.filter((o) => o.right).length,
    wrong: outcomes.filter((o) => o.acted !== null && !o.right).length,
  };
}

const pct = (n: number, of: number) => (of === 0 ? '0.0%' : `${((100 * n) / of).toFixed(1)}%`);

function table(rows: [string, Tally][]): string {
  const lines = [
    '| kind | items | asked | handled correctly | wrong unasked |',
    '| ---- | ----- | ----- | ----------------- | ------------- |',
  ];
  for (const [name, t] of rows)
    lines.push(
      `| ${name} | ${t.items} | ${t.asked} (${pct(t.asked, t.items)}) | ${t.correct} (${pct(t.correct, t.items)}) | ${t.wrong} (${pct(t.wrong, t.items)}) |`,
    );
  return lines.join('\n');
}

async function writeFormatted(file: string, text: string): Promise<void> {
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(text, { ...options, filepath: file }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '1,2,3,4,5' },
      count: { type: 'string', default: '200' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  const seeds = values.seeds.split(',').map((s) => Number(s.trim()));
  const count = Number(values.count);
  if (seeds.some((s) => !Number.isInteger(s)) || !Number.isInteger(count) || count < 1) {
    process.stderr.write('bench:offline: --seeds takes integers (1,2,3) and --count a positive integer\n');
    process.exit(2);
  }
  const all: Outcome[] = [];
  const perSeed: { seed: number; tally: Tally }[] = [];
  for (const seed of seeds) {
    const outcomes = await runSeed(seed, count);
    all.push(...outcomes);
    const t = tally(outcomes);
    perSeed.push({ seed, tally: t });
    process.stderr.write(
      `seed ${seed}: ${t.items} items, ${t.asked} asked, ${t.correct} handled correctly, ${t.wrong} wrong unasked\n`,
    );
  }
  const kinds = [...new Set(all.map((o) => o.kind))].sort();
  const total = tally(all);
  const byKind: [string, Tally][] = kinds.map((k) => [k, tally(all.filter((o) => o.kind === k))]);
  const wrong = all.filter((o) => o.acted !== null && !o.right);
  // The bar holds for every seed, not only on average.
  const pass = perSeed.every(({ tally: t }) => t.wrong <= BAR * t.items);
  const worst = perSeed.reduce((a, b) =>
    b.tally.wrong / b.tally.items > a.tally.wrong / a.tally.items ? b : a,
  );
  const summary = [
    table([...byKind, ['**all**', total]]),
    '',
    `Wrong unasked actions: ${total.wrong} of ${total.items} (${pct(total.wrong, total.items)}); worst seed ${worst.seed}: ${pct(worst.tally.wrong, worst.tally.items)}; bar <= ${BAR * 100}% on every seed: ${pass ? 'PASS' : 'FAIL'}.`,
    `Asked: ${pct(total.asked, total.items)}. Handled correctly without asking: ${pct(total.correct, total.items)}.`,
  ].join('\n');
  process.stdout.write(`${summary}\n`);
  for (const w of wrong.slice(0, 20))
    process.stdout.write(`  wrong: ${w.kind} -> ${w.acted}: "${w.subject}" <${w.from}>\n`);
  if (values['dry-run']) return;
  await writeFormatted(
    path.join(RESULTS_DIR, 'offline-accuracy.json'),
    JSON.stringify({
      seeds,
      count,
      bar: BAR,
      pass,
      total,
      perSeed,
      byKind: Object.fromEntries(byKind),
      wrong,
    }),
  );
  await writeFormatted(
    path.join(RESULTS_DIR, 'offline-accuracy.md'),
    `# Offline model accuracy\n\nSeeds ${seeds.join(', ')}, ${count} messages each, inbox-triage workflow, real engine.\n\n${summary}\n`,
  );
}

await main();

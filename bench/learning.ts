/**
 * Learning benchmark: a simulated month (30 days) of mail from a fixed seed, run through the
 * REAL engine (startRun, the gate, decide() and whatever learner decide() wakes) with the
 * offline model, a temp JSON-file store and a temp Maildir, on the inbox-triage workflow.
 *
 * Each day: new mail is delivered, one run starts, and a simulated person answers every
 * pending decision by a HIDDEN, consistent policy (bench/learning/population.ts), leaving a
 * true note about half the time. From that day's audit entries it measures the share asked,
 * the share handled by memory, and wrong actions by memory (decided_by memory, action not the
 * person's). Nothing here writes rules: if none appear, the learner did not write any.
 *
 *   npm run bench:learning                     # 30 days, the fixed seed
 *   npm run bench:learning -- --days 14 --seed 7 --keep --dry-run   # --dry-run: print only, write no results
 *
 * Prints the per-day table and the summary (with THE BAR, PASS or FAIL; exit code 0 either
 * way) and writes bench/results/learning.{json,md,svg}.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { listAudit } from '../shared/audit/audit.ts';
import { type AuditEntry } from '../shared/records/audit.ts';
import { loadEnv } from '../shared/config/env.ts';
import { matches } from '../shared/memory/match.ts';
import type { Rule } from '../shared/records/rule.ts';
import { listRules } from '../shared/memory/rules-repository.ts';
import { listProposals } from '../shared/runs/domain-proposals.ts';
import type { Notifier } from '../shared/notify/notifier.ts';
import { allowedActions, decide } from '../shared/runs/decide.ts';
import { listPending } from '../shared/runs/decision-repository.ts';
import type { EngineDeps } from '../shared/runs/deps.ts';
import { getRun } from '../shared/runs/run-repository.ts';
import { startRun } from '../shared/runs/start-run.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { writeMaildir, type MessageSpec } from '../shared/sources/maildir/generate.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { JsonFileStore } from '../shared/store/json-file-store.ts';
import type { Store } from '../shared/store/store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { DEFAULT_SEED } from './generate-mail.ts';
import {
  describePolicy,
  itemKey,
  mailForDay,
  MAX_PER_DAY,
  MIN_PER_DAY,
  POPULATION,
  POPULATION_DOMAINS,
  type Truth,
} from './learning/population.ts';
import {
  markdownTable,
  pct,
  summarise,
  summaryLines,
  svgChart,
  type DayRow,
  type Summary,
} from './learning/report.ts';
import { newProposalTally, reviewProposals, savedByProposals } from './learning/proposals.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const WORKFLOW_ID = 'inbox-triage';
const DEFAULT_DAYS = 30;
/** Answer rounds per day: a resumed run that asks again is answered again, up to this many times. */
const MAX_ROUNDS = 5;

const quietNotifier: Notifier = { notify: async () => {} };

/** Results are written as prettier would format them, so `npm run format:check` stays clean after a run. */
async function writeFormatted(file: string, text: string): Promise<void> {
  const options = (await resolveConfig(file)) ?? {};
  await writeFile(file, await format(text, { ...options, filepath: file }));
}

interface RuleView {
  id: string;
  match: Rule['match'];
  action: string;
  source: Rule['source'];
  note: string | null;
  superseded: boolean;
  created_on_day: number;
  /** Messages of the month this rule matches whose hidden action differs (a latent misfire). */
  contradicts: number;
  /** Messages of the month it matches. */
  covers: number;
}

interface Delivered {
  spec: MessageSpec;
  truth: Truth;
}

const isLive = (r: Rule) =>
  r.superseded_by === null && (r.workflow_id === null || r.workflow_id === WORKFLOW_ID);

/** Rules count and newest write: unchanged across two looks means the learner is quiet. */
async function rulesFingerprint(store: Store): Promise<string> {
  const rules = await listRules(store);
  return `${rules.length}|${rules.filter((r) => r.superseded_by !== null).length}|${rules.at(-1)?.created_at ?? ''}`;
}

/** If the learner writes after decide() returns, give it a moment (bounded) to finish. */
async function settleLearner(store: Store): Promise<void> {
  let last = await rulesFingerprint(store);
  let stable = 0;
  for (let i = 0; i < 40 && stable < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = await rulesFingerprint(store);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

/** The person answers every pending decision of the run by the hidden policy (and its notes). */
async function answerAll(
  deps: EngineDeps,
  runId: string,
  truths: ReadonlyMap<string, Truth>,
  errors: string[],
): Promise<{ answers: number; notes: number }> {
  let answers = 0;
  let notes = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const pending = await listPending(deps.store);
    const mine = pending.filter((d) => d.run_id === runId);
    if (pending.length > mine.length) errors.push(`${pending.length - mine.length} pending from other runs`);
    if (mine.length === 0) break;
    for (const decision of mine) {
      const truth = truths.get(itemKey(decision.item_id));
      if (!truth) errors.push(`decision ${decision.id} for an unknown item ${decision.item_id}: skipped`);
      let action: string = truth?.action ?? 'skip';
      if (!allowedActions(decision).includes(action)) {
        errors.push(
          `"${action}" is not offered for ${decision.item_id} (${decision.options.join(', ')}): skipped`,
        );
        action = 'skip';
      }
      const note = truth?.note ?? null;
      try {
        await decide(deps, decision.id, action, note);
        answers += 1;
        if (note !== null) notes += 1;
      } catch (error) {
        errors.push(`decide ${decision.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { answers, notes };
}

/** The day's row, from that run's audit entries (the record) and the hidden policy. */
function measureDay(
  day: number,
  delivered: number,
  audit: readonly AuditEntry[],
  truths: ReadonlyMap<string, Truth>,
  errors: string[],
): Pick<
  DayRow,
  'items' | 'asked' | 'memory' | 'model' | 'wrong_by_memory' | 'model_wrong' | 'model_wrong_by_segment'
> {
  const last = new Map<string, AuditEntry>();
  for (const entry of audit) if (entry.item_id !== null) last.set(entry.item_id, entry);
  let asked = 0;
  let memory = 0;
  let model = 0;
  let wrongByMemory = 0;
  let modelWrong = 0;
  const bySegment: Record<string, number> = {};
  for (const [itemId, entry] of last) {
    const truth = truths.get(itemKey(itemId));
    if (!truth) {
      errors.push(`audit names an item the benchmark did not deliver: ${itemId}`);
      continue;
    }
    if (truth.day !== day) errors.push(`item from day ${truth.day} handled on day ${day}`);
    if (entry.decided_by === 'human' || entry.outcome === 'expired') asked += 1;
    else if (entry.decided_by === 'memory') {
      memory += 1;
      if (entry.action !== truth.action) wrongByMemory += 1;
    } else if (entry.decided_by === 'model') {
      model += 1;
      if (entry.action !== truth.action) {
        modelWrong += 1;
        bySegment[truth.segment] = (bySegment[truth.segment] ?? 0) + 1;
      }
    }
  }
  if (last.size !== delivered) errors.push(`${delivered} delivered, ${last.size} handled`);
  return {
    items: last.size,
    asked,
    memory,
    model,
    wrong_by_memory: wrongByMemory,
    model_wrong: modelWrong,
    model_wrong_by_segment: bySegment,
  };
}

/** Every rule at the end, checked against every message of the month (latent misfires included). */
function viewRules(
  rules: readonly Rule[],
  month: readonly Delivered[],
  dayOfRule: Map<string, number>,
): RuleView[] {
  return rules.map((rule) => {
    let covers = 0;
    let contradicts = 0;
    for (const { spec, truth } of month) {
      if (!matches(rule.match, { senderAddress: spec.from, subject: spec.subject, text: spec.body }))
        continue;
      covers += 1;
      if (rule.action !== truth.action) contradicts += 1;
    }
    return {
      id: rule.id,
      match: rule.match,
      action: rule.action,
      source: rule.source,
      note: rule.note,
      superseded: rule.superseded_by !== null,
      created_on_day: dayOfRule.get(rule.id) ?? 0,
      covers,
      contradicts,
    };
  });
}

async function simulate(seed: number, days: number, keep: boolean) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'handoff-learning-'));
  const maildir = path.join(root, 'Maildir');
  const stateDir = path.join(root, 'state');
  try {
    const store = new JsonFileStore(stateDir);
    const env = loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_MODEL_PROVIDER: 'local' });
    // The feed is quiet, but failures (a learner that threw inside decide(), a failed action) are kept.
    const failures: string[] = [];
    const emit: EngineDeps['emit'] = (_channel, kind, text) => {
      if (kind === 'failed') failures.push(text);
    };
    const deps = engineFromEnv(env, { store, notifier: quietNotifier, emit });
    await saveWorkflow(store, parseWorkflow(demoWorkflowYaml(maildir), `${WORKFLOW_ID}.yaml`));

    const truths = new Map<string, Truth>();
    const month: Delivered[] = [];
    const dayOfRule = new Map<string, number>();
    const rows: DayRow[] = [];
    const proposals = newProposalTally();
    for (let day = 1; day <= days; day++) {
      const started = performance.now();
      const errors: string[] = [];
      failures.length = 0;
      const mail = mailForDay(seed, day);
      mail.truths.forEach((truth, i) => {
        truths.set(truth.item_id, truth);
        month.push({ spec: mail.messages[i]!, truth });
      });
      await writeMaildir(maildir, mail.messages);

      const rulesLive = (await listRules(store)).filter(isLive).length;
      reviewProposals(proposals, await listProposals(store), truths, day);
      const run = await startRun(deps, WORKFLOW_ID, { kind: 'manual', detail: `day ${day}` });
      const { answers, notes } = await answerAll(deps, run.id, truths, errors);
      await settleLearner(store);
      for (const rule of await listRules(store)) if (!dayOfRule.has(rule.id)) dayOfRule.set(rule.id, day);
      const learned = [...dayOfRule.values()].filter((d) => d === day).length;

      errors.push(...failures);
      const finished = await getRun(store, run.id);
      if (finished.status !== 'completed')
        errors.push(`run ${finished.status}${finished.error ? `: ${finished.error}` : ''}`);
      const audit = await listAudit(store, { runId: run.id });
      const counts = measureDay(day, mail.messages.length, audit, truths, errors);
      const byProposals = savedByProposals(proposals, audit, truths);
      const row: DayRow = {
        day,
        delivered: mail.messages.length,
        ...counts,
        asked_pct: pct(counts.asked, counts.items),
        memory_pct: pct(counts.memory, counts.items),
        rules_live: rulesLive,
        rules_learned: learned,
        saved_by_proposals: byProposals.saved,
        wrong_by_proposals: byProposals.wrong,
        answers,
        notes,
        run_status: finished.status,
        wall_ms: Math.round(performance.now() - started),
        errors,
      };
      rows.push(row);
      process.stderr.write(
        `day ${String(day).padStart(2)}: ${row.items} items, ${row.asked} asked, ${row.memory} by memory, ${row.wrong_by_memory} wrong by memory, ${row.rules_live} rules live, +${row.rules_learned} learned (${row.wall_ms} ms)${
          errors.length ? `  ! ${errors.join('; ')}` : ''
        }\n`,
      );
    }
    const rules = viewRules(await listRules(store), month, dayOfRule);
    const reviewed = [...proposals.decided.entries()].map(([domain, p]) => ({ domain, ...p }));
    return { rows, rules, month, proposals: reviewed };
  } finally {
    if (keep) process.stderr.write(`kept ${root}\n`);
    else await rm(root, { recursive: true, force: true });
  }
}

function populationFacts(month: readonly Delivered[]) {
  const bySegment: Record<string, number> = {};
  const senders = new Set<string>();
  for (const { truth } of month) {
    bySegment[truth.segment] = (bySegment[truth.segment] ?? 0) + 1;
    senders.add(truth.sender);
  }
  return {
    recurring_senders: POPULATION.length,
    recurring_domains: POPULATION_DOMAINS.size,
    messages_per_day: [MIN_PER_DAY, MAX_PER_DAY],
    messages: month.length,
    distinct_senders_seen: senders.size,
    messages_by_segment: bySegment,
    notes_written_if_asked: month.filter((m) => m.truth.note !== null).length,
  };
}

function markdown(
  rows: readonly DayRow[],
  summary: Summary,
  seed: number,
  rules: readonly RuleView[],
): string {
  const learned = rules.filter((r) => r.source === 'learned');
  const kinds = (['sender', 'domain', 'keywords'] as const)
    .map((k) => `${learned.filter((r) => k in r.match).length} ${k}`)
    .join(', ');
  return [
    '## Learning benchmark (`npm run bench:learning`)',
    '',
    `A simulated month of mail (seed \`0x${seed.toString(16)}\`, ${POPULATION.length} recurring senders across ${POPULATION_DOMAINS.size} domains plus a few never-seen senders a day, ${MIN_PER_DAY}-${MAX_PER_DAY} messages a day) through the real engine with the offline model. A simulated person answers every question by a hidden, consistent policy and leaves a true note about half the time. "asked" = set aside for the person; "memory" = decided by a rule; "wrong by memory" = a rule's action differs from the person's policy; "model wrong" = the model acted alone and differs from the policy (not part of the bar); "rules live" = rules the day's run could use; "learned" = rules written that day.`,
    '',
    markdownTable(rows),
    '',
    ...summaryLines(summary).map((l) => `- ${l}`),
    `- Learned rules at the end: ${learned.length} (${kinds}); rules that would misfire on some message of the month: ${
      learned.filter((r) => r.contradicts > 0).length
    }`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      days: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : DEFAULT_SEED;
  const days = values.days !== undefined ? Number(values.days) : DEFAULT_DAYS;
  if (!Number.isInteger(seed) || !Number.isInteger(days) || days < 1)
    throw new Error('--seed and --days must be integers (days >= 1)');

  const started = performance.now();
  const { rows, rules, month, proposals } = await simulate(seed, days, values.keep);
  const learnedRules = rules.filter((r) => r.source === 'learned' && !r.superseded);
  const summary = summarise(rows, learnedRules.length, {
    made: proposals.length,
    accepted: proposals.filter((p) => p.accepted).length,
  });
  const totalS = Math.round((performance.now() - started) / 100) / 10;

  console.log(
    `\nLearning benchmark: ${days} days, seed 0x${seed.toString(16)}, offline model (${totalS} s)\n`,
  );
  console.log(markdownTable(rows));
  console.log('');
  for (const line of summaryLines(summary)) console.log(line);
  const misfiring = rules.filter((r) => r.contradicts > 0);
  if (rules.length > 0) {
    console.log(
      `\nRules at the end (${rules.length}; latent misfires against the month's mail: ${misfiring.length}):`,
    );
    for (const r of rules)
      console.log(
        `  day ${String(r.created_on_day).padStart(2)} ${r.source.padEnd(7)} ${JSON.stringify(r.match)} -> ${r.action}${
          r.superseded ? ' (superseded)' : ''
        }  covers ${r.covers}, contradicts ${r.contradicts}${r.note ? `  note: ${JSON.stringify(r.note)}` : ''}`,
      );
  }
  const errorDays = rows.filter((r) => r.errors.length > 0);
  if (errorDays.length > 0)
    console.log(`\nDays with anomalies: ${errorDays.map((r) => r.day).join(', ')} (see JSON)`);

  if (values['dry-run']) {
    console.log('\n--dry-run: bench/results left as they were');
    return;
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const subtitle = `${days} days · seed 0x${seed.toString(16)} · offline model · ${POPULATION.length} recurring senders, ${POPULATION_DOMAINS.size} domains + new ones daily · ${learnedRules.length} learned rules at the end`;
  await writeFormatted(
    path.join(RESULTS_DIR, 'learning.json'),
    `${JSON.stringify(
      {
        benchmark: 'learning',
        generated_at: new Date().toISOString(),
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: os.availableParallelism(),
        seed,
        days,
        total_s: totalS,
        workflow: WORKFLOW_ID,
        model: 'offline (HANDOFF_MODEL_PROVIDER=local)',
        population: populationFacts(month),
        hidden_policy: describePolicy(),
        summary,
        rows,
        rules,
        proposals,
      },
      null,
      2,
    )}\n`,
  );
  await writeFormatted(path.join(RESULTS_DIR, 'learning.md'), markdown(rows, summary, seed, rules));
  await writeFile(path.join(RESULTS_DIR, 'learning.svg'), svgChart(rows, summary, subtitle));
  console.log(`\nWrote bench/results/learning.json, learning.md, learning.svg`);
}

await main();

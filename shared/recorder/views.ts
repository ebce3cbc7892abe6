import type { z } from 'zod';
import { DecisionSchema, InterruptSchema, type Decision, type Run } from '../records/runs.ts';
import { decisionsOfRun } from '../runs/decision-repository.ts';
import { getRun } from '../runs/run-repository.ts';
import { getRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { roundUsd } from './prices.ts';
import { learnerSessionId, readSession } from './store-sink.ts';
import { costParts, type TraceEntry } from './trace.ts';
import { copiesOf, usageToSum, type UsageSums } from './usage-days.ts';

type Interrupt = z.infer<typeof InterruptSchema>;

/** A person's answer to one question of a pause, placed in the trace after that pause. */
export interface AnswerEntry {
  kind: 'answer';
  at: string;
  decision_id: string;
  item_id: string;
  subject: string;
  suggested_action: string;
  /** Null while the question is still waiting. */
  action: string | null;
  note: string | null;
  by: 'human' | 'expired' | 'unreachable' | null;
}

export type InspectEntry = TraceEntry | AnswerEntry;

/** One run as a trace, for `handoff inspect` and the Inspector page. */
export interface RunTrace {
  run: Pick<Run, 'id' | 'workflow_id' | 'status' | 'started_at' | 'finished_at' | 'error'>;
  entries: InspectEntry[];
  totals: {
    model_calls: number;
    tool_calls: number;
    input_tokens: number;
    output_tokens: number;
    /** Null when a turn's cost is unknown (a model with no price, or no usage reported). */
    cost_usd: number | null;
    /** The sum over the turns whose cost is known. */
    known_cost_usd: number;
    unknown_cost_calls: number;
  };
  /** Entries the trace had no room for. */
  dropped: number;
}

/** The run's trace with the answers to each pause in place; throws NotFoundError for an unknown run. */
export async function inspectRun(store: Store, runId: string): Promise<RunTrace> {
  const run = await getRun(store, runId);
  const session = await readSession(store, runId);
  const entries: InspectEntry[] = [...(session?.entries ?? [])];
  // The run's pauses, read by id: those its questions name (read by the run's key) and its last.
  const asked = await decisionsOfRun(store, run);
  const ids = [
    ...new Set([...asked.map((d) => d.interrupt_id), ...(run.interrupt_id ? [run.interrupt_id] : [])]),
  ];
  const interrupts = (await getRecords(store, 'interrupts', InterruptSchema, ids))
    .filter((i): i is Interrupt => i !== undefined && i.run_id === runId)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  for (const interrupt of interrupts) {
    const answers: InspectEntry[] = [];
    // The interrupt's own questions, read by id (a question dropped since is left out).
    const decisions = await getRecords(store, 'decisions', DecisionSchema, interrupt.decision_ids);
    for (const decision of decisions) {
      if (decision === undefined) continue;
      answers.push(answerEntry(decision));
      // What the learner made of the answer: its turns, kept in a record of their own.
      answers.push(...((await readSession(store, learnerSessionId(decision.id)))?.entries ?? []));
    }
    const pause = entries.findIndex(
      (e) => e.kind === 'pause' && e.interrupt_id === interrupt.strands_interrupt_id,
    );
    const resume = entries.findIndex((e, i) => i > pause && e.kind === 'resume');
    const at = pause >= 0 ? (resume >= 0 ? resume : pause + 1) : entries.length;
    entries.splice(at, 0, ...answers);
  }
  const models = entries.filter((e) => e.kind === 'model');
  const known = roundUsd(models.reduce((s, e) => s + (e.cost_usd ?? 0), 0));
  return {
    run: {
      id: run.id,
      workflow_id: run.workflow_id,
      status: run.status,
      started_at: run.started_at,
      finished_at: run.finished_at,
      error: run.error,
    },
    entries,
    totals: {
      model_calls: models.length,
      tool_calls: entries.filter((e) => e.kind === 'tool').length,
      input_tokens: models.reduce((s, e) => s + e.input_tokens, 0),
      output_tokens: models.reduce((s, e) => s + e.output_tokens, 0),
      cost_usd: models.some((e) => e.cost_usd === null) ? null : known,
      known_cost_usd: known,
      unknown_cost_calls: models.filter((e) => e.cost_usd === null).length,
    },
    dropped: session?.dropped ?? 0,
  };
}

function answerEntry(d: Decision): AnswerEntry {
  return {
    kind: 'answer',
    at: d.answer?.at ?? d.created_at,
    decision_id: d.id,
    item_id: d.item_id,
    subject: d.subject,
    suggested_action: d.suggested_action,
    action: d.answer?.action ?? null,
    note: d.answer?.note ?? null,
    by: d.answer?.by ?? null,
  };
}

/** Tokens and cost of one workflow on one UTC day. */
export interface UsageRow {
  workflow_id: string;
  day: string;
  input_tokens: number;
  output_tokens: number;
  /** Null when some calls cost an unknown amount (a model with no price, or no usage reported). */
  cost_usd: number | null;
  calls: number;
  /** The sum over the calls whose cost is known. */
  known_cost_usd: number;
  /** Calls whose cost is unknown, counted apart rather than as zero. */
  unknown_cost_calls: number;
}

/**
 * Sums the usage per workflow and day, oldest day first: from the roll-ups (one record per
 * workflow and day, usage-days.ts) when they hold every usage record, else from every 'usage'
 * record (before the backfill ran, or a roll-up is full).
 */
export async function usageByWorkflowDay(store: Store): Promise<UsageRow[]> {
  const rows = new Map<string, UsageRow>();
  const add = (day: string, workflowId: string, u: UsageSums) => {
    const key = `${day}\u0000${workflowId}`;
    const row = rows.get(key) ?? {
      workflow_id: workflowId,
      day,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: 0,
      calls: 0,
      known_cost_usd: 0,
      unknown_cost_calls: 0,
    };
    row.input_tokens += u.input;
    row.output_tokens += u.output;
    row.known_cost_usd = roundUsd(row.known_cost_usd + u.known);
    row.unknown_cost_calls += u.unknownCalls;
    row.cost_usd = row.unknown_cost_calls === 0 ? row.known_cost_usd : null;
    row.calls += u.calls;
    rows.set(key, row);
  };
  const sums = await usageToSum(store);
  if ('rollUps' in sums) {
    for (const rollUp of sums.rollUps)
      for (const copy of copiesOf(rollUp)) add(rollUp.day, rollUp.workflow_id, copy);
  } else {
    for (const u of sums.records) {
      const { known, unknownCalls } = costParts(u);
      add(u.day, u.workflow_id, {
        input: u.input_tokens,
        output: u.output_tokens,
        known,
        unknownCalls,
        calls: u.calls,
      });
    }
  }
  return [...rows.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || a.workflow_id.localeCompare(b.workflow_id),
  );
}

/**
 * A cost for people, unknown never shown as zero: `0.0123`, `0.0123 + 2 turns of unknown
 * cost`, or `unknown (2 turns)` when no turn's cost is known.
 */
export function costText(knownUsd: number, unknownCalls: number, format: (usd: number) => string): string {
  const turns = `${unknownCalls} turn${unknownCalls === 1 ? '' : 's'}`;
  if (unknownCalls === 0) return format(knownUsd);
  if (knownUsd === 0) return `unknown (${turns})`;
  return `${format(knownUsd)} + ${turns} of unknown cost`;
}

/** Why a cost may be unknown, in one line. */
export const UNKNOWN_COST_NOTE =
  'unknown cost: the endpoint reported no token usage for the turn, or the model has no price in shared/recorder/prices.ts';

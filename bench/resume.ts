/**
 * Resume time: every question of a waiting run answered through the engine's decide path
 * (each answer recorded, the learner woken, the run resumed after the last), timed, with
 * the store writes counted. Next to it, what the same answers would cost in round trips
 * if each unsure item raised its own interrupt instead of one per run.
 */
import { listPending } from '../shared/runs/decision-repository.ts';
import { allowedActions, decide } from '../shared/runs/decide.ts';
import type { EngineDeps } from '../shared/runs/deps.ts';
import type { Decision } from '../shared/records/runs.ts';
import { round, type CountingStore, type TimedOfflineModel } from './instruments.ts';

export interface ResumeResult {
  /** Questions answered: the run's deferred items, all in its one interrupt. */
  answers: number;
  /** The run's status once the last answer resumed it. */
  status_after: string;
  /** From the first answer until the resumed run stopped. */
  wall_s: number;
  ms_per_answer: number;
  /** The last answer alone: recording it, then resuming the run and carrying out every answer. */
  last_answer_and_resume_s: number;
  /** Time in the offline model (the learner wakes for each answer); not platform time. */
  model_s: number;
  store_writes: number;
  store_writes_per_answer: number;
  /** Store reads (get, list, listWithStatus calls) per answer. */
  store_reads_per_answer: number;
  /** Every store call while answering and resuming, by method, and the reads and writes by collection. */
  store_calls: Record<string, number>;
  reads_by_collection: Record<string, number>;
  writes_by_collection: Record<string, number>;
  /** The resume alone (the last answer): store writes, per answer carried out. */
  resume_store_writes_per_answer: number;
  /** Times the person is asked and the run paused and resumed: one interrupt per run. */
  round_trips: number;
  /** The same, if every unsure item raised its own interrupt (one per submit_action call). */
  round_trips_one_interrupt_per_call: number;
}

/** The answer the bench gives: the agent's suggestion when it is offered, else skip. */
export function answerFor(decision: Decision): string {
  const allowed = allowedActions(decision).filter((a) => a !== 'approve_suggested');
  return allowed.includes(decision.suggested_action) ? decision.suggested_action : 'skip';
}

/**
 * Answers every pending decision of `runId`, in order, through `decide`, and measures it.
 * `store` must be the store in `deps`, and `models` the list the model factory fills.
 */
export async function measureResume(
  deps: EngineDeps,
  store: CountingStore,
  models: readonly TimedOfflineModel[],
  runId: string,
): Promise<ResumeResult> {
  // Reading the questions is the person's screen, before any answer: not timed.
  const pending = (await listPending(deps.store)).filter((d) => d.run_id === runId);
  const modelMsBefore = models.reduce((s, m) => s + m.modelMs, 0);
  store.reset();
  const started = performance.now();
  let status = 'waiting';
  let lastStarted = started;
  let writesBeforeLast = 0;
  for (const [i, decision] of pending.entries()) {
    if (i === pending.length - 1) {
      lastStarted = performance.now();
      writesBeforeLast = store.writes;
    }
    status = (await decide(deps, decision.id, answerFor(decision), null)).run_status;
  }
  const ended = performance.now();
  const modelMs = models.reduce((s, m) => s + m.modelMs, 0) - modelMsBefore;
  const answers = pending.length;
  return {
    answers,
    status_after: status,
    wall_s: round((ended - started) / 1000),
    ms_per_answer: answers > 0 ? round((ended - started) / answers, 2) : 0,
    last_answer_and_resume_s: round((ended - lastStarted) / 1000),
    model_s: round(modelMs / 1000),
    store_writes: store.writes,
    store_writes_per_answer: answers > 0 ? round(store.writes / answers, 2) : 0,
    store_reads_per_answer: answers > 0 ? round(store.reads / answers, 1) : 0,
    store_calls: { ...store.calls },
    reads_by_collection: { ...store.readsByCollection },
    writes_by_collection: { ...store.writesByCollection },
    resume_store_writes_per_answer: answers > 0 ? round((store.writes - writesBeforeLast) / answers, 2) : 0,
    round_trips: answers > 0 ? 1 : 0,
    round_trips_one_interrupt_per_call: answers,
  };
}

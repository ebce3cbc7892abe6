/**
 * Learning from an answer, where it belongs: in this process (the CLI, the local server),
 * or, where a dispatcher sends it elsewhere (AWS), in the function that owns model calls,
 * so an answer is saved and answered at once whatever the model does. Learning that fails
 * is never dropped: the answer keeps a `learning_failures` record with the reason (shown on
 * the Memory page and by `handoff doctor`), and the sweep tries it again.
 */
import { usageDayRef } from '../recorder/usage-days.ts';
import { errorMessage, HandoffError } from '../errors/index.ts';
import { answeredOnce } from '../memory/exception.ts';
import { LearningFailureSchema, type LearningFailure } from '../records/learning.ts';
import type { Decision } from '../records/runs.ts';
import { answerRuleRefs } from '../memory/rule-keys.ts';
import { usageId } from '../recorder/store-sink.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { RecordRef } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { getDecision } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { learnFromDecision, type LearnOutcome } from './learn.ts';

/** Attempts at one answer before it is left for a person to see (the sweep stops retrying). */
export const MAX_LEARN_ATTEMPTS = 5;
/** How long a failed attempt waits before the sweep tries it again. */
export const LEARN_RETRY_AFTER_MS = 5 * 60_000;

/** Learning from an answer failed; the answer stands and the failure is recorded. */
export class LearningFailedError extends HandoffError {}

/** What became of learning from one answer, as its answer surface tells it. */
export type AfterAnswer =
  | { kind: 'learned'; outcome: LearnOutcome }
  /** Sent to the function that learns (AWS): what it learns shows on the Memory page. */
  | { kind: 'sent' }
  | { kind: 'failed'; error: string };

/**
 * After an answer is saved: learns from it here, or sends it to where learning runs. Never
 * throws: a failure to learn, or to send, is recorded on the answer's learning record.
 */
export async function learnAfterAnswer(
  deps: EngineDeps,
  decision: Decision,
  workflow?: Workflow,
): Promise<AfterAnswer> {
  // A once-answer teaches nothing and needs no model: settled here, wherever learning runs.
  if (deps.dispatcher?.learn && !answeredOnce(decision.answer)) {
    try {
      await deps.dispatcher.learn({ decision_id: decision.id });
      return { kind: 'sent' };
    } catch (error) {
      const reason = `could not be sent to the learner: ${errorMessage(error)}`;
      await recordFailure(deps, decision, reason);
      return { kind: 'failed', error: reason };
    }
  }
  const result = await learnOrRecord(deps, decision, workflow);
  return result.ok ? { kind: 'learned', outcome: result.outcome } : { kind: 'failed', error: result.error };
}

/**
 * Wakes the learner for one answer; a failure is recorded (attempts counted) and returned,
 * a success clears an earlier failure.
 */
export async function learnOrRecord(
  deps: EngineDeps,
  decision: Decision,
  workflow?: Workflow,
): Promise<{ ok: true; outcome: LearnOutcome } | { ok: false; error: string }> {
  try {
    const outcome = await learnFromDecision(deps, decision, workflow);
    if (await getRecord(deps.store, 'learning_failures', LearningFailureSchema, decision.id))
      await deps.store.delete('learning_failures', decision.id);
    return { ok: true, outcome };
  } catch (error) {
    const reason = errorMessage(error);
    await recordFailure(deps, decision, reason);
    return { ok: false, error: reason };
  }
}

/**
 * The learner function's work: learns from decision `decisionId`. Throws LearningFailedError
 * when it fails (after recording why), so the host retries it. Reads the decision, then in one
 * batch what learning reads (the workflow, the usage record, the rules' copies, an earlier
 * failure), through a cache kept for this one answer.
 */
export async function learnFromAnswerById(engine: EngineDeps, decisionId: string): Promise<LearnOutcome> {
  const { readCache } = await import('../store/read-cache.ts');
  const cache = readCache(engine.store);
  const deps: EngineDeps = { ...engine, store: cache };
  const decision = await getDecision(deps.store, decisionId);
  await cache.prefetch([
    { collection: 'workflows', id: decision.workflow_id },
    { collection: 'learning_failures', id: decision.id },
    ...answerRuleRefs(decision.workflow_id, decision.sender, decision.workflow_view?.source_key ?? null),
    ...(await learnerUsageRefs(deps, decision, decision.answer ?? { note: null })),
  ]);
  const result = await learnOrRecord(deps, decision);
  if (!result.ok) throw new LearningFailedError(`learning from ${decisionId} failed: ${result.error}`);
  return result.outcome;
}

/** The answers learning has failed for, newest first. */
export async function learningFailures(deps: Pick<EngineDeps, 'store'>): Promise<LearningFailure[]> {
  const failures = await listRecords(deps.store, 'learning_failures', LearningFailureSchema);
  return failures.sort((a, b) => b.failed_at.localeCompare(a.failed_at));
}

/**
 * The sweep's part: each failed answer with attempts left, whose last attempt is old enough,
 * is tried again (sent to the learner, or learned here). Returns the decision ids retried.
 */
export async function retryLearning(deps: EngineDeps, now = new Date()): Promise<string[]> {
  const retried: string[] = [];
  for (const failure of await learningFailures(deps)) {
    if (failure.attempts >= MAX_LEARN_ATTEMPTS) continue;
    if (now.getTime() - Date.parse(failure.failed_at) < LEARN_RETRY_AFTER_MS) continue;
    const decision = await getDecision(deps.store, failure.id).catch(() => null);
    if (!decision) {
      await deps.store.delete('learning_failures', failure.id); // the answer is gone: nothing to learn
      continue;
    }
    await learnAfterAnswer(deps, decision);
    retried.push(decision.id);
  }
  return retried;
}

async function recordFailure(deps: EngineDeps, decision: Decision, reason: string): Promise<void> {
  const error = reason.replace(/\s+/g, ' ').trim();
  const before = await getRecord(deps.store, 'learning_failures', LearningFailureSchema, decision.id);
  const failure: LearningFailure = {
    id: decision.id,
    run_id: decision.run_id,
    workflow_id: decision.workflow_id,
    sender: decision.sender,
    subject: decision.subject,
    error,
    attempts: (before?.attempts ?? 0) + 1,
    failed_at: new Date().toISOString(),
  };
  await deps.store.put('learning_failures', failure);
  deps.emit(decision.run_id, 'failed', `Could not learn from ${decision.id}: ${error}`, {
    decision_id: decision.id,
    attempts: failure.attempts,
  });
}

/**
 * The usage record the learner adds its turns to (the run's, for the learner's model) and
 * its day's roll-up, so they are read with the answer's batch; none when the answer teaches nothing or no model can
 * be made (the learner then reports it).
 */
export async function learnerUsageRefs(
  deps: EngineDeps,
  decision: Decision,
  answer: { note: string | null; once?: boolean | undefined },
): Promise<RecordRef[]> {
  if (answeredOnce({ once: answer.once, note: answer.note?.trim() || null })) return [];
  try {
    const modelId = (await deps.models('fallback')).getConfig().modelId ?? 'unknown';
    const today = new Date().toISOString().slice(0, 10); // the roll-up its turns most likely go to
    return [
      { collection: 'usage', id: usageId(decision.run_id, modelId) },
      usageDayRef(today, decision.workflow_id),
    ];
  } catch {
    return [];
  }
}

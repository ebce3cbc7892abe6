import { AlreadyDecidedError, InvalidInputError } from '../errors/index.ts';
import { decide } from '../runs/decide.ts';
import { getDecision } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { expireDecision } from '../runs/lifecycle.ts';
import { resumeIfReady } from '../runs/run-loop.ts';
import { getRun } from '../runs/run-repository.ts';
import type { Decision, Run } from '../records/runs.ts';
import type { HostReply } from './ask-host.ts';

/** What became of one question asked through the host. */
export interface Settled {
  decision_id: string;
  subject: string;
  /** The person's action, or skip. */
  action: string;
  by: 'human' | 'unreachable' | 'elsewhere';
  reason: string | null;
}

/**
 * Applies what the host brought back, through the run's own transitions: each answer is
 * recorded with `decide` (as from the CLI or the web), every question left without one is
 * skipped as unreachable (never decided, nothing learned), and the run resumes.
 */
export async function settle(
  engine: EngineDeps,
  runId: string,
  decisions: readonly Decision[],
  reply: HostReply,
): Promise<{ run: Run; settled: Settled[] }> {
  const settled: Settled[] = [];
  const leftOver: { d: Decision; why?: string }[] = [];
  for (const d of decisions) {
    const answer = reply.kind === 'answered' ? reply.answers.get(d.id) : undefined;
    if (!answer) {
      leftOver.push({ d });
      continue;
    }
    try {
      await decide(engine, d.id, answer.action, answer.note);
      settled.push({
        decision_id: d.id,
        subject: d.subject,
        action: answer.action,
        by: 'human',
        reason: null,
      });
    } catch (error) {
      if (error instanceof InvalidInputError) {
        leftOver.push({ d, why: error.message }); // an answer the decision cannot take (say, a suggestion the workflow does not declare) is no answer
        continue;
      }
      if (!(error instanceof AlreadyDecidedError)) throw error;
      settled.push({
        decision_id: d.id,
        subject: d.subject,
        action: 'unchanged',
        by: 'elsewhere',
        reason: error.message,
      });
    }
  }
  const unanswered =
    reply.kind === 'unreachable' ? reply.reason : 'the person left it unanswered in the MCP host';
  const at = new Date().toISOString();
  for (const { d, why } of leftOver) {
    const reason = why ?? unanswered;
    const current = await getDecision(engine.store, d.id);
    const skipped =
      current.status === 'pending' &&
      (await expireDecision(engine.store, current, { by: 'unreachable', reason, at }));
    settled.push(
      skipped
        ? { decision_id: d.id, subject: d.subject, action: 'skip', by: 'unreachable', reason }
        : {
            decision_id: d.id,
            subject: d.subject,
            action: 'unchanged',
            by: 'elsewhere',
            reason: 'answered elsewhere meanwhile',
          },
    );
  }
  const run = leftOver.length > 0 ? await resumeIfReady(engine, runId) : await getRun(engine.store, runId);
  return { run, settled };
}

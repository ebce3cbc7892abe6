import {
  AlreadyDecidedError,
  InvalidInputError,
  VersionConflictError,
  errorMessage,
} from '../errors/index.ts';
import { crashPoint } from '../config/processes.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { getDecision } from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { expireDue } from './housekeeping.ts';
import { DecisionSchema, type Decision } from '../records/runs.ts';
import { describeAnswer } from './views.ts';
import { proposeDomainRule } from './domain-proposals.ts';
import { learnFromDecision } from './learn.ts';
import { resumeIfReady } from './run-loop.ts';
import { readGraph } from './graph-state.ts';
import { getRun } from './run-repository.ts';

/** What `handoff decide --json` and `POST /api/decisions/:id` return. */
export interface DecideResult {
  decision_id: string;
  action: string;
  run_id: string;
  run_status: string;
}

/** The actions a person may choose for a decision. */
export function allowedActions(decision: Decision): string[] {
  return [...new Set([...decision.options, 'approve_suggested', 'skip'])];
}

/**
 * Records one answer; when it is the last of its interrupt, resumes the run. Answering
 * twice, an unknown decision or an action not offered is refused and changes nothing.
 */
export async function decide(
  deps: EngineDeps,
  decisionId: string,
  action: string,
  note: string | null,
): Promise<DecideResult> {
  await expireDue(deps);
  const decision = await getDecision(deps.store, decisionId);
  if (decision.status !== 'pending') {
    throw new AlreadyDecidedError(
      decision.status === 'expired'
        ? `decision ${decisionId} expired unanswered; the item was skipped, nothing was done to it`
        : `decision ${decisionId} was already answered (${decision.answer?.action}); answers cannot be changed`,
      decision,
    );
  }
  const allowed = allowedActions(decision);
  if (!allowed.includes(action))
    throw new InvalidInputError(
      `"${action}" is not an option for decision ${decisionId}; choose one of: ${allowed.join(', ')}`,
    );
  if (action === 'approve_suggested') await assertSuggestionAllowed(deps, decision);
  readGraph(await getRun(deps.store, decision.run_id)); // a run this build cannot resume takes no answer

  let answered: Decision;
  try {
    answered = await deps.store.update(
      'decisions',
      {
        ...decision,
        status: 'answered',
        answer: { action, note: note?.trim() || null, by: 'human', at: new Date().toISOString() },
      },
      decision.version,
    );
  } catch (error) {
    if (error instanceof VersionConflictError)
      throw new AlreadyDecidedError(
        `decision ${decisionId} was answered by someone else just now`,
        error.current ?? {},
      );
    throw error;
  }
  crashPoint('decide:answered'); // a later command resumes the run if this process dies here
  deps.emit(decision.run_id, 'decided', `${describeAnswer(answered)}: ${decision.subject}`, {
    decision_id: decisionId,
    action,
  });
  await learnQuietly(deps, DecisionSchema.parse(answered));
  const run = await resumeIfReady(deps, decision.run_id);
  return { decision_id: decisionId, action, run_id: run.id, run_status: run.status };
}

async function assertSuggestionAllowed(deps: EngineDeps, decision: Decision): Promise<void> {
  const workflow = await getWorkflow(deps.store, decision.workflow_id);
  const declared = workflow.actions.some((a) => a.name === decision.suggested_action);
  if (!declared && decision.suggested_action !== 'skip')
    throw new InvalidInputError(
      `the agent suggested "${decision.suggested_action}", which this workflow does not declare; choose one of: ${decision.options.join(', ')}`,
    );
}

/**
 * Every answer wakes the learner and may make a domain proposal; if either fails, the
 * answer still stands and the run goes on.
 */
async function learnQuietly(deps: EngineDeps, decision: Decision): Promise<void> {
  for (const step of [learnFromDecision, proposeDomainRule]) {
    try {
      await step(deps, decision);
    } catch (error) {
      const message = errorMessage(error);
      deps.emit(decision.run_id, 'failed', `Learning from ${decision.id} failed: ${message}`, {
        decision_id: decision.id,
      });
    }
  }
}

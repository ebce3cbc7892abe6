import {
  AlreadyDecidedError,
  InvalidInputError,
  NotFoundError,
  VersionConflictError,
  errorMessage,
} from '../errors/index.ts';
import { crashPoint } from '../config/processes.ts';
import { getWorkflow } from '../workflows/repository.ts';
import {
  getDecision,
  listDecisions,
  pendingOfRun,
  readDecisionAndRun,
  runDecisionPrefix,
  type DecisionRead,
} from './decision-repository.ts';
import type { EngineDeps } from './deps.ts';
import { expireDecision } from './lifecycle.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import { DecisionSchema, RunSchema, type Decision } from '../records/runs.ts';
import { parseRecord } from '../store/records.ts';
import {
  checksHeld,
  commitAll,
  getEach,
  type JsonRecord,
  type VersionCheck,
  type Write,
} from '../store/store.ts';
import { describeAnswer } from './views.ts';
import { proposeDomainRule } from './domain-proposals.ts';
import { learnAfterAnswer, learnerUsageRefs, type AfterAnswer } from './learning.ts';
import { answerRuleRefs } from '../memory/rule-keys.ts';
import { resumeIfReady } from './run-loop.ts';
import { carryOutAnswer } from './carry-answer.ts';
import { readGraph, UnreadableSnapshotError } from './graph-state.ts';
import { log } from '../logging/log.ts';
import { approvedWords, wordsFor, type WordEdits } from '../actions/words.ts';

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

/** How an answer is given besides its action and note. */
export interface AnswerOptions {
  /** Just this once: the answer teaches nothing and cancels nothing. */
  once?: boolean;
  /** "workflow": the rule it teaches is kept to this workflow (default: every workflow reading its source). */
  scope?: 'source' | 'workflow';
  /** The person's own words for the chosen action (an edited draft's body or title). */
  edits?: WordEdits;
  /**
   * False: an answer whose run still waits is not carried out here; the caller carries it
   * (a batch of answers, after the batch: answer-many.ts). Default: carried out at once.
   */
  carry?: boolean;
}

/** What `recordAnswer` returns: the result, the decision as stored and what still waits. */
export interface Decided extends DecideResult {
  answered: Decision;
  /** What learning from the answer came to (learned here, sent to the learner, or failed). */
  learned: AfterAnswer;
  /** The run's questions still waiting after this answer, oldest first (null: not read). */
  waiting: Decision[] | null;
}

/**
 * Records one answer; when it is the last of its interrupt, resumes the run. Answering
 * twice, an unknown decision, an expired one or an action not offered is refused and
 * changes nothing. Only this decision is checked for its deadline: the sweep (sweeper,
 * scheduler, CLI housekeeping) expires the others.
 */
export async function decide(
  deps: EngineDeps,
  decisionId: string,
  action: string,
  note: string | null,
  options: AnswerOptions = {},
): Promise<DecideResult> {
  const { decision_id, run_id, run_status } = await recordAnswer(
    deps,
    decisionId,
    action,
    note,
    undefined,
    [],
    options,
  );
  return { decision_id, action, run_id, run_status };
}

/**
 * `decide`, returning also the decision as stored and the run's questions still waiting.
 * `read` is the decision (with its run's waiting questions, when read with it) as the caller
 * just read it: it saves a read, and the answer is still conditional on its version.
 * `alongside` are writes that belong with the answer (a signed link spent by it): committed
 * with it in one durable write where the store can. `edits`: the person's own words for
 * the chosen action (a reply's body, a ticket's title), replacing the draft's.
 */
export async function recordAnswer(
  engine: EngineDeps,
  decisionId: string,
  action: string,
  note: string | null,
  read?: DecisionRead,
  alongside: readonly Write[] = [],
  options: AnswerOptions = {},
): Promise<Decided> {
  // Loaded with the first answer, not at a cold start (the API's bundle budget).
  const { readCache } = await import('../store/read-cache.ts');
  const { domainAnswerRefs, domainAnswerWrites, needsGathering, recordDomainAnswer } =
    await import('./domain-answers.ts');
  // One answer reads each record once: what the learner reads comes with the answer's batch.
  const cache = readCache(engine.store);
  const deps: EngineDeps = { ...engine, store: cache };
  const known = read?.decision?.id === decisionId ? read : await readDecisionAndRun(deps.store, decisionId);
  if (!known.decision) throw new NotFoundError(`no decision "${decisionId}": see \`handoff pending\``);
  // The run's questions already decided came with it: a domain proposal's evidence among them is not read again.
  cache.seed('decisions', known.decided);
  const decision = await expireIfDue(deps, known.decision);
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
  const resolved = action === 'approve_suggested' ? decision.suggested_action : action;
  const words = approvedWords(resolved, wordsFor(decision.drafts, resolved), options.edits ?? {}); // refuses a bad edit
  const edited =
    words?.by === 'person' ? { body: words.body, ...(words.title ? { title: words.title } : {}) } : {};
  // One batched read; a workflow deleted since the question was asked still takes answers (it teaches nothing).
  const domainRefs = domainAnswerRefs(decision);
  const [workflowRecord, runRecord, ...more] = await getEach(deps.store, [
    { collection: 'workflows', id: decision.workflow_id },
    { collection: 'runs', id: decision.run_id },
    ...domainRefs,
    // What the learner and a domain proposal read of the rules: the keys of the sender and its domain.
    ...answerRuleRefs(decision.workflow_id, decision.sender, decision.workflow_view?.source_key ?? null),
    // Learning here: the usage record its turns are added to, and an earlier failure it clears.
    ...(deps.dispatcher?.learn
      ? []
      : [
          ...(await learnerUsageRefs(deps, decision, { note, once: options.once })),
          { collection: 'learning_failures' as const, id: decision.id },
        ]),
  ]);
  const domainRead = more.slice(0, domainRefs.length);
  const workflow = workflowRecord ? parseRecord(WorkflowSchema, 'workflows', workflowRecord) : null;
  if (!runRecord) throw new NotFoundError(`no run "${decision.run_id}": see \`handoff runs\``);
  const run = parseRecord(RunSchema, 'runs', runRecord);
  if (action === 'approve_suggested')
    assertSuggestionAllowed(workflow ?? (await getWorkflow(deps.store, decision.workflow_id)), decision);
  readGraph(run); // a run this build cannot resume takes no answer

  const record = {
    ...decision,
    status: 'answered',
    answer: {
      action,
      note: note?.trim() || null,
      ...(options.once ? { once: true } : {}),
      ...(options.scope === 'workflow' ? { scope: 'workflow' } : {}),
      ...edited,
      by: 'human',
      at: new Date().toISOString(),
    },
  };
  // What the answer teaches about its sender's domain goes in the same commit (with, once
  // per workspace, every earlier answer's).
  const earlier = needsGathering(decision, domainRead) ? await listDecisions(deps.store) : undefined;
  const domainWrites = domainAnswerWrites(DecisionSchema.parse(record), domainRead, earlier);
  const before = waitingBefore(known, decision);
  const checks = stillWaitingCheck(before);
  const writes: Write[] = [
    { kind: 'update', collection: 'decisions', record, expectedVersion: decision.version },
    ...alongside,
    ...domainWrites,
  ];
  const results = await commitAll(deps.store, writes, { checks });
  const written = results[0];
  const domainResults = results.slice(1 + alongside.length, writes.length);
  const domain = {
    written: domainResults.flatMap((r) => (r.ok ? [r.record] : [])),
    regather: earlier !== undefined && domainResults.some((r) => !r.ok),
  };
  if (!written!.ok) {
    const error = written!.error;
    // The domain record took this lost answer: it names the winner's again.
    if (domainResults.some((r) => r.ok) && error instanceof VersionConflictError && error.current)
      await recordDomainAnswer(deps.store, DecisionSchema.parse(error.current));
    if (error instanceof VersionConflictError)
      throw new AlreadyDecidedError(
        `decision ${decisionId} was answered by someone else just now`,
        error.current ?? {},
      );
    throw error;
  }
  const answered = DecisionSchema.parse(written!.record);
  if (results.slice(1, 1 + alongside.length).some((r) => !r.ok))
    log.warn(`decision ${decisionId}: a write that belongs with its answer did not land`);
  crashPoint('decide:answered'); // a later command resumes the run if this process dies here
  deps.emit(decision.run_id, 'decided', `${describeAnswer(answered)}: ${decision.subject}`, {
    decision_id: decisionId,
    action,
  });
  const learned = await learnQuietly(deps, answered, workflow, domain);
  const waiting = await waitingAfter(
    deps,
    answered,
    before,
    checksHeld(results, writes.length, checks.length),
  );
  // Others still wait: this item is carried out now, not at the run's last answer.
  if (options.carry !== false && waiting !== null && waiting.length > 0)
    await carryOutAnswer(engine, answered, run, workflow);
  // Others still wait: the run stays paused (no need to read its interrupt); else it may
  // resume, read afresh (the answer's cache covers the answer, not the run it resumes) but
  // for what this answer knows: the run as read with it, and every question it saw decided.
  const settled =
    before?.length === 0
      ? { run, decided: new Set([decisionId, ...known.decided.map((d) => d.id)]) }
      : undefined;
  const after =
    waiting !== null && waiting.length > 0 ? run : await resumeIfReady(engine, decision.run_id, settled);
  return {
    decision_id: decisionId,
    action,
    run_id: after.id,
    run_status: after.status,
    answered,
    learned,
    waiting,
  };
}

/**
 * The questions still waiting after an answer: none when none waited before it; those when
 * the newest of them still waited as the answer landed (`checked`, in its transaction);
 * else read.
 */
async function waitingAfter(
  deps: EngineDeps,
  answered: Decision,
  before: Decision[] | null,
  checked: boolean,
): Promise<Decision[] | null> {
  if (before?.length === 0) return [];
  if (before && checked) return before;
  return stillAsking(deps, answered);
}

/** The other questions of the decision's interrupt still waiting when it was read (null: not read). */
function waitingBefore(known: DecisionRead, decision: Decision): Decision[] | null {
  if (known.waiting === null || known.decision?.version !== decision.version) return null;
  return known.waiting.filter((d) => d.interrupt_id === decision.interrupt_id && d.id !== decision.id);
}

/**
 * That the newest question still waiting is still waiting when the answer lands (it is the
 * one a person answering in order reaches last): if it holds, the answer is not the last.
 */
function stillWaitingCheck(before: Decision[] | null): VersionCheck[] {
  const newest = before?.at(-1);
  return newest ? [{ collection: 'decisions', id: newest.id, expectedVersion: newest.version }] : [];
}

/**
 * The questions of the answered one's interrupt still waiting, oldest first, read in one
 * strongly consistent keyed read; null for a run asked before decision ids carried their
 * run (then the interrupt is read instead). Of two people answering a run's last two
 * questions at once, at least one sees none waiting, and resumes the run.
 */
async function stillAsking(deps: EngineDeps, answered: Decision): Promise<Decision[] | null> {
  if (!answered.id.startsWith(runDecisionPrefix(answered.run_id))) return null;
  const pending = await pendingOfRun(deps.store, answered.run_id, answered.id);
  return pending.filter((d) => d.interrupt_id === answered.interrupt_id);
}

/** The decision, expired first when its deadline has passed (its run resumes without it). */
async function expireIfDue(deps: EngineDeps, decision: Decision, now = new Date()): Promise<Decision> {
  if (decision.status !== 'pending' || decision.expires_at > now.toISOString()) return decision;
  if (await expireDecision(deps.store, decision, { by: 'expired', at: now.toISOString() })) {
    try {
      await resumeIfReady(deps, decision.run_id);
    } catch (error) {
      // A run this build cannot read stays waiting, untouched (as the sweep leaves it).
      if (!(error instanceof UnreadableSnapshotError)) throw error;
      log.warn(error.message);
    }
  }
  return getDecision(deps.store, decision.id);
}

function assertSuggestionAllowed(workflow: Workflow, decision: Decision): void {
  const declared = workflow.actions.some((a) => a.name === decision.suggested_action);
  if (!declared && decision.suggested_action !== 'skip')
    throw new InvalidInputError(
      `the agent suggested "${decision.suggested_action}", which this workflow does not declare; choose one of: ${decision.options.join(', ')}`,
    );
}

/**
 * Every answer wakes the learner (here, or in the function that owns model calls) and may
 * make a domain proposal. Neither undoes the answer: a learning failure is recorded where
 * the Memory page and `handoff doctor` show it (learning.ts), a proposal's is told on the feed.
 */
async function learnQuietly(
  deps: EngineDeps,
  decision: Decision,
  workflow: Workflow | null,
  domain: { written: JsonRecord[]; regather: boolean },
): Promise<AfterAnswer> {
  const learned = await learnAfterAnswer(deps, decision, workflow ?? undefined);
  try {
    await proposeDomainRule(deps, decision, workflow ?? undefined, domain);
  } catch (error) {
    const message = errorMessage(error);
    deps.emit(decision.run_id, 'failed', `A domain proposal from ${decision.id} failed: ${message}`, {
      decision_id: decision.id,
    });
  }
  return learned;
}

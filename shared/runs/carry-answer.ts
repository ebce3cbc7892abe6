/**
 * Answers take effect as they arrive: an answered item is carried out right after its
 * answer, while the run still waits for its other questions (the run's last answer resumes
 * the run, which carries out the rest). The same claim as every action makes it happen
 * once: the item's hold is taken over by a conditional write, the action done, its audit
 * entry written and the claim settled; a process killed midway leaves a claim `acting`,
 * which the sweep or the resume settles from its entry (or as failed, to check by hand),
 * and the resume never acts on an item whose claim is no longer a hold.
 */
import { carryOutMany, countFor, type Choice } from '../actions/carry-out.ts';
import { wordsAsApproved } from '../actions/words.ts';
import { crashPoint } from '../config/processes.ts';
import { errorMessage } from '../errors/index.ts';
import { runIntegrations } from '../integrations/run-integrations.ts';
import { log } from '../logging/log.ts';
import { DecisionSchema, RunSchema, type Decision, type Run } from '../records/runs.ts';
import { getRecord } from '../store/records.ts';
import { openSource } from '../sources/open-source.ts';
import { distinctId, type ItemSource, type SourceItem } from '../sources/source.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import type { EngineDeps } from './deps.ts';
import { countWhileWaiting } from './lifecycle.ts';

/**
 * Carries out one answered item of a run that still waits, or sends it to the process that
 * acts (where steps run in their own functions, AWS: a `handoff.carry` event for the resume
 * function). Never throws: whatever is not done now (the source is away, the event was not
 * taken) is done by the resume.
 */
export async function carryOutAnswer(
  engine: EngineDeps,
  answered: Decision,
  run: Run,
  workflow: Workflow | null,
): Promise<void> {
  if (!carriable(answered, run, workflow)) return;
  const dispatcher = engine.dispatcher;
  if (dispatcher && !dispatcher.carry) return; // no process to send it to: the resume step does it
  try {
    if (dispatcher?.carry) await dispatcher.carry({ decision_id: answered.id });
    else await carryOut(engine, answered, answered.item_ref!, run, workflow!);
  } catch (error) {
    const message = errorMessage(error);
    log.warn(`decision ${answered.id}: not carried out at once (${message}); the run's resume does it`);
  }
}

/** What became of an answer sent to be carried out: its item's outcome, or null with why not. */
export type CarryResult =
  | { decision_id: string; run_id: string; outcome: string }
  | { decision_id: string; outcome: null; reason: string };

/**
 * Carries out an answer sent by {@link carryOutAnswer} (the resume function's `handoff.carry`),
 * here, whatever the engine's dispatcher. A late or repeated delivery finds the item claimed,
 * the run resumed or the answer gone, and does nothing. Throws only when the store does.
 */
export async function carryOutSentAnswer(engine: EngineDeps, decisionId: string): Promise<CarryResult> {
  const answered = await getRecord(engine.store, 'decisions', DecisionSchema, decisionId);
  if (!answered) return { decision_id: decisionId, outcome: null, reason: 'no such decision' };
  const run = await getRecord(engine.store, 'runs', RunSchema, answered.run_id);
  const workflow = await getRecord(engine.store, 'workflows', WorkflowSchema, answered.workflow_id);
  if (!run || !carriable(answered, run, workflow ?? null))
    return { decision_id: decisionId, outcome: null, reason: 'the run no longer waits on this answer' };
  const outcome = await carryOut(engine, answered, answered.item_ref!, run, workflow!);
  return outcome
    ? { decision_id: decisionId, run_id: run.id, outcome }
    : { decision_id: decisionId, outcome: null, reason: 'already carried out, or gone from its source' };
}

/** An answered item of a run still waiting on the question it answers, its workflow still there. */
function carriable(answered: Decision, run: Run, workflow: Workflow | null): boolean {
  if (!answered.item_ref || answered.status !== 'answered' || !answered.answer) return false;
  if (run.status !== 'waiting' || run.interrupt_id !== answered.interrupt_id) return false;
  // A workflow deleted since the question was asked has no source to act through: the resume records it.
  return workflow?.id === answered.workflow_id;
}

async function carryOut(
  engine: EngineDeps,
  answered: Decision,
  ref: string,
  run: Run,
  workflow: Workflow,
): Promise<string | null> {
  const choice = choiceOf(answered);
  const integrations = await runIntegrations(engine.store, engine.credentials, {
    actions: [choice.action],
    servers: [],
  });
  const source = integrations.wrapSource(
    openSource(workflow, { run, credentials: engine.credentials, store: engine.store }),
  );
  try {
    const item = await itemOf(source, answered, ref, choice);
    if (!item) return null; // gone from the source: the resume records that
    crashPoint('answer:carrying');
    const ctx = { store: engine.store, source, workflowId: workflow.id, runId: run.id };
    const { results } = await carryOutMany(ctx, [{ item, choice, held: true }]);
    const result = results[0]!;
    if (result.outcome === 'duplicate' || result.outcome === 'released') return null;
    crashPoint('answer:carried');
    engine.emit(
      run.id,
      result.outcome === 'failed' ? 'failed' : 'acted',
      `${choice.action}: ${answered.subject}`,
      {
        item_id: item.id,
        action: choice.action,
        outcome: result.outcome,
        decided_by: 'human',
        ...(choice.agent !== undefined ? { agent: choice.agent } : {}),
      },
    );
    await countWhileWaiting(engine.store, run, countFor(choice, result));
    return result.outcome;
  } finally {
    await integrations.close();
    await source.close?.();
  }
}

/**
 * The person's answer as the gate carries it out (as on resume: decided by the human,
 * confidence 1), with the words they approved: the draft they saw, with their edits.
 */
function choiceOf(answered: Decision): Choice {
  const answer = answered.answer!;
  const action = answer.action === 'approve_suggested' ? answered.suggested_action : answer.action;
  // The words as approved: the draft the person saw, with their edits (never written anew).
  const words = wordsAsApproved(action, answered.drafts, { body: answer.body, title: answer.title });
  return {
    action,
    decidedBy: 'human',
    confidence: 1,
    reasoning: answered.reasoning,
    note: answer.note,
    ruleId: null,
    ruleSource: null,
    decisionId: answered.id,
    ...(answered.agent !== undefined ? { agent: answered.agent } : {}),
    ...(words ? { words } : {}),
  };
}

/**
 * The item to act on: as its question describes it, for a skip or an action the source does
 * by reference (Maildir's moves); else read again (null when it is gone).
 */
async function itemOf(
  source: ItemSource,
  answered: Decision,
  ref: string,
  choice: Choice,
): Promise<SourceItem | null> {
  if (choice.action === 'skip' || source.actsByRef?.has(choice.action))
    return {
      id: answered.item_id,
      ref,
      sender: { address: answered.sender, name: '' },
      to: [],
      subject: answered.subject,
      text: answered.snippet,
      date: null,
      hints: [],
    };
  const read = await source.read(ref);
  if (!read.ok) return null;
  // The same item (or the one of several copies it was asked about), never another at that ref.
  if (read.item.id === answered.item_id) return read.item;
  return distinctId(read.item) === answered.item_id ? { ...read.item, id: answered.item_id } : null;
}

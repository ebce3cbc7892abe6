/**
 * The assistant's world-changing steps, carried out only once the person said yes (see
 * confirm-gate.ts): save or delete a workflow, start a run, answer a decision, add or
 * revoke a rule. Each goes through the product's own path (saveWorkflow, createRunFor and
 * executeRun, decide, addRule, revokeRule); input is validated again here.
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';
import { addRule, revokeRule } from '../memory/rules-repository.ts';
import { RuleMatchSchema } from '../records/rule.ts';
import { decide } from '../runs/decide.ts';
import { pendingOfRun } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { createRunFor, executeRun } from '../runs/start-run.ts';
import { describeOutcome } from '../runs/counts.ts';
import type { Confirm } from '../chats/chat-records.ts';
import { deleteWorkflow, saveWorkflow } from '../workflows/repository.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import { getScheduleState, pauseUntilSet } from '../schedules/schedules.ts';
import { missingCredentials } from './workflow-card.ts';
import type { TurnLog } from './turn-log.ts';
import { decisionCard } from './late-questions.ts';
import { plural } from '../text/plural.ts';

const WorkflowIdInput = z.object({ workflow_id: z.string().min(1) });
const AnswerInput = z.object({
  decision_id: z.string().min(1),
  action: z.string().min(1),
  note: z.string().nullable().optional(),
  /** The words the answer saves instead of the draft (shown on the confirm card). */
  body: z.string().optional(),
  title: z.string().optional(),
});
const RuleInput = z.object({
  match: RuleMatchSchema,
  action: z.string().min(1),
  workflow_id: z.string().nullable().optional(),
  note: z.string().nullable().optional(),
});
const RevokeInput = z.object({ rule_id: z.string().min(1) });

/** Carries out a confirmed step; returns what to tell the person. Refusals throw InvalidInputError/NotFoundError. */
export async function carryOut(engine: EngineDeps, step: Confirm, log: TurnLog): Promise<string> {
  switch (step.tool) {
    case 'save_workflow': {
      const parsed = WorkflowSchema.safeParse(step.input.config);
      if (!parsed.success)
        throw new InvalidInputError('the drafted workflow is not valid any more; nothing was saved');
      const workflow = parsed.data;
      // Checked again at the yes: a credential may have been set (or removed) since the card.
      const missing = await missingCredentials(engine.credentials, workflow);
      await saveReadyOrPaused(engine, workflow, missing);
      await engine.onWorkflowChange?.(workflow.id, 'saved', engine.workspace);
      log.workflowId = workflow.id;
      log.card({ kind: 'workflow_saved', workflow_id: workflow.id });
      log.emit('workflow_saved', `Saved workflow ${workflow.id}`, {
        workflow_id: workflow.id,
        ...(missing.length > 0 ? { paused: true, needs: missing } : {}),
      });
      if (missing.length > 0)
        return `Saved "${workflow.name}" as workflow ${workflow.id}, paused: it needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not set, so it will not run. Set ${missing.length > 1 ? 'them' : 'it'} with \`handoff credentials set ${missing[0]}\` (or on the web's Credentials page): it resumes by itself once ${missing.length > 1 ? 'they are' : 'it is'} set.`;
      return `Saved "${workflow.name}" as workflow ${workflow.id}. Say "run it now" to try it.`;
    }
    case 'delete_workflow': {
      const { workflow_id } = WorkflowIdInput.parse(step.input);
      await deleteWorkflow(engine.store, workflow_id);
      if (await getScheduleState(engine.store, workflow_id))
        await engine.store.delete('schedules', workflow_id);
      await engine.onWorkflowChange?.(workflow_id, 'removed', engine.workspace);
      return `Deleted workflow ${workflow_id}.`;
    }
    case 'start_run':
      return startRun(engine, WorkflowIdInput.parse(step.input).workflow_id, log);
    case 'answer_decision': {
      const { decision_id, action, note, body, title } = AnswerInput.parse(step.input);
      const result = await decide(engine, decision_id, action, note ?? null, { edits: { body, title } });
      log.runId = result.run_id;
      return `Recorded ${action} for ${decision_id}; run ${result.run_id} is ${result.run_status}.`;
    }
    case 'add_rule': {
      const input = RuleInput.parse(step.input);
      const rule = await addRule(engine.store, {
        workflowId: input.workflow_id ?? null,
        match: input.match,
        action: input.action,
        note: input.note ?? null,
      });
      return `Added rule ${rule.id}.`;
    }
    case 'revoke_rule': {
      const rule = await revokeRule(engine.store, engine.mirror, RevokeInput.parse(step.input).rule_id);
      return `Revoked rule ${rule.id}.`;
    }
  }
}

/**
 * Saves a workflow that can run as it is; one that lacks credentials is paused first (so no
 * scheduler ever sees it active), saying what it needs. A stale "needs" pause is lifted.
 */
async function saveReadyOrPaused(engine: EngineDeps, workflow: Workflow, missing: string[]): Promise<void> {
  const state = await getScheduleState(engine.store, workflow.id);
  if (missing.length > 0) await pauseUntilSet(engine.store, workflow.id, missing);
  try {
    await saveWorkflow(engine.store, workflow);
  } catch (error) {
    if (missing.length > 0 && !state) await engine.store.delete('schedules', workflow.id);
    throw error;
  }
  if (missing.length === 0 && state?.needs?.length) await engine.store.delete('schedules', workflow.id);
}

/** Starts a run and works it until it completes or pauses; its questions become decision cards. */
async function startRun(engine: EngineDeps, workflowId: string, log: TurnLog): Promise<string> {
  const created = await createRunFor(engine, workflowId, { kind: 'manual', detail: null });
  log.runId = created.id;
  log.emit('run_started', `Run ${created.id} of ${workflowId} started`, {
    run_id: created.id,
    workflow_id: workflowId,
  });
  const run = await executeRun(engine, created);
  const text = `Run ${run.id}: ${run.status} — ${describeOutcome(run)}`;
  log.card({ kind: 'run', run_id: run.id, status: run.status, text });
  if (run.status !== 'waiting') return `${text}.`;
  const waiting = await pendingOfRun(engine.store, run.id);
  for (const d of waiting) log.card(decisionCard(d));
  log.emit('asked', `${plural(waiting.length, 'question')} waiting`, {
    run_id: run.id,
    decision_ids: waiting.map((d) => d.id),
  });
  return `${text}. ${plural(waiting.length, 'question')} wait${waiting.length === 1 ? 's' : ''} for you: answer each on its card, or say "skip DECISION_ID" (see handoff pending).`;
}

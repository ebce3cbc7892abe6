/**
 * The assistant's own gate: a world-changing tool (save or delete a workflow, start a run,
 * answer a decision, change a rule) never runs when the model calls it. The call is
 * cancelled, the step is kept on the chat as a confirmation card, and it is carried out
 * only when the person says yes (chat-service.ts). The model cannot confirm for them.
 */
import { randomUUID } from 'node:crypto';
import { BeforeToolCallEvent, type Agent } from '@strands-agents/sdk';
import { updateChat } from '../chats/chat-repository.ts';
import { ConfirmSchema, type Confirm, type ConfirmTool } from '../chats/chat-records.ts';
import { listRules } from '../memory/rules-repository.ts';
import { allowedActions } from '../runs/decide.ts';
import { getDecision } from '../runs/decision-repository.ts';
import { getWorkflow } from '../workflows/repository.ts';
import type { ChatTurn } from './chat-turn.ts';
import { currentDraft } from './draft.ts';

/** The tools that change the world. */
export const WORLD_CHANGING = new Set<string>(ConfirmSchema.shape.tool.options);

/** A gated tool's body: reached only if the gate was bypassed, and then it refuses. */
export function gatedCallback(name: ConfirmTool): () => never {
  return () => {
    throw new Error(`${name} runs only after the person confirms in the chat`);
  };
}

/** Attaches the gate to an agent of the chat. */
export function attachConfirmGate(agent: Agent, turn: ChatTurn): void {
  agent.addHook(BeforeToolCallEvent, async (event) => {
    const name = event.toolUse.name;
    if (!WORLD_CHANGING.has(name)) return;
    const input = (event.toolUse.input ?? {}) as Record<string, unknown>;
    const step = await describe(turn, name as ConfirmTool, input);
    if ('refused' in step) {
      event.cancel = step.refused;
      return;
    }
    const confirm: Confirm = {
      id: randomUUID(),
      tool: name as ConfirmTool,
      input: step.input,
      summary: step.summary,
      asked_at: new Date().toISOString(),
    };
    await updateChat(turn.engine.store, turn.chatId, () => ({ confirm }));
    turn.log.confirm = confirm;
    turn.log.card({ kind: 'confirm', confirm_id: confirm.id, summary: confirm.summary, status: 'pending' });
    event.cancel = `Not done yet: the person must confirm first (${confirm.summary}). Tell them what will happen and ask them to say yes.`;
  });
}

/** The step in one line, with the input it will run with; or why it cannot be asked for. */
async function describe(
  turn: ChatTurn,
  tool: ConfirmTool,
  input: Record<string, unknown>,
): Promise<{ summary: string; input: Record<string, unknown> } | { refused: string }> {
  const str = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : '');
  switch (tool) {
    case 'save_workflow': {
      const draft = await currentDraft(turn);
      if (!draft) return { refused: 'there is no valid draft to save: call validate_workflow first' };
      return { summary: `Save workflow "${draft.name}" (${draft.id})`, input: { config: { ...draft } } };
    }
    case 'delete_workflow':
    case 'start_run': {
      const workflow = await getWorkflow(turn.engine.store, str('workflow_id')).catch(() => null);
      if (!workflow) return { refused: `there is no workflow "${str('workflow_id')}" (see list_workflows)` };
      const verb = tool === 'start_run' ? 'Run' : 'Delete workflow';
      return {
        summary: `${verb} "${workflow.name}" (${workflow.id})${tool === 'start_run' ? ' now' : ''}`,
        input: { workflow_id: workflow.id },
      };
    }
    case 'answer_decision': {
      const decision = await getDecision(turn.engine.store, str('decision_id')).catch(() => null);
      if (decision?.status !== 'pending')
        return { refused: `there is no waiting decision "${str('decision_id')}" (see list_pending)` };
      const allowed = allowedActions(decision);
      if (!allowed.includes(str('action')))
        return {
          refused: `"${str('action')}" is not an option for this decision; choose one of: ${allowed.join(', ')}`,
        };
      return { summary: `Answer "${decision.subject}" with ${str('action')}`, input };
    }
    case 'add_rule':
      return { summary: `Add a rule: ${JSON.stringify(input.match)} → ${str('action')}`, input };
    case 'revoke_rule': {
      const known = (await listRules(turn.engine.store)).some((r) => r.id === str('rule_id'));
      if (!known) return { refused: `there is no rule "${str('rule_id')}" (see list_rules)` };
      return { summary: `Revoke rule ${str('rule_id')}`, input };
    }
  }
}

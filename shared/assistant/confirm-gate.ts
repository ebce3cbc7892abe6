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
import { approvedWords, wordsFor } from '../actions/words.ts';
import { InvalidInputError } from '../errors/index.ts';
import { allowedActions } from '../runs/decide.ts';
import { getDecision } from '../runs/decision-repository.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { cardDeps, type ChatTurn } from './chat-turn.ts';
import { currentDraft } from './draft.ts';
import { previewWorkflow } from './preview.ts';
import type { WorkflowCard } from '../chats/chat-records.ts';
import { cardPreview, missingCredentials, workflowCard } from './workflow-card.ts';

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
    const asked = await askFor(turn, name as ConfirmTool, input);
    event.cancel =
      'refused' in asked
        ? asked.refused
        : `Not done yet: the person must confirm first (${asked.summary}). Tell them what will happen and ask them to say yes.`;
  });
}

/**
 * Keeps a step on the chat as the confirmation waiting for the person's yes (replacing any
 * other), with its card on the turn; or says why it cannot be asked for.
 */
export async function askFor(
  turn: ChatTurn,
  tool: ConfirmTool,
  input: Record<string, unknown>,
): Promise<Confirm | { refused: string }> {
  const step = await describe(turn, tool, input);
  if ('refused' in step) return step;
  const confirm: Confirm = {
    id: randomUUID(),
    tool,
    input: step.input,
    summary: step.summary,
    ...(step.card ? { card: step.card } : {}),
    asked_at: new Date().toISOString(),
  };
  await updateChat(turn.engine.store, turn.chatId, () => ({ confirm }));
  turn.log.confirm = confirm;
  turn.log.card({
    kind: 'confirm',
    confirm_id: confirm.id,
    summary: confirm.summary,
    status: 'pending',
    ...(step.card ? { card: step.card } : {}),
  });
  return confirm;
}

/** The step in one line, with the input it will run with; or why it cannot be asked for. */
async function describe(
  turn: ChatTurn,
  tool: ConfirmTool,
  input: Record<string, unknown>,
): Promise<{ summary: string; input: Record<string, unknown>; card?: WorkflowCard } | { refused: string }> {
  const str = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : '');
  switch (tool) {
    case 'save_workflow': {
      const draft = await currentDraft(turn);
      if (!draft) return { refused: 'there is no valid draft to save: call validate_workflow first' };
      const preview =
        turn.log.previewOf(draft.id) ??
        cardPreview(
          await previewWorkflow(
            {
              store: turn.engine.store,
              credentials: turn.engine.credentials,
              threshold: turn.engine.settings.confidenceThreshold,
            },
            draft,
          ),
        );
      const card = await workflowCard(cardDeps(turn), draft, preview);
      const missing = card.credentials.filter((c) => !c.set).map((c) => c.name);
      const paused =
        missing.length > 0
          ? `, paused until ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} set`
          : '';
      return {
        summary: `Save workflow "${draft.name}" (${draft.id})${paused}`,
        input: { config: { ...draft } },
        card,
      };
    }
    case 'delete_workflow': {
      const workflow = await getWorkflow(turn.engine.store, str('workflow_id')).catch(() => null);
      if (!workflow) return { refused: `there is no workflow "${str('workflow_id')}" (see list_workflows)` };
      return {
        summary: `Delete workflow "${workflow.name}" (${workflow.id}): it stops running and cannot be brought back`,
        input: { workflow_id: workflow.id },
        card: await workflowCard(cardDeps(turn), workflow),
      };
    }
    case 'start_run': {
      const workflow = await getWorkflow(turn.engine.store, str('workflow_id')).catch(() => null);
      if (!workflow) return { refused: `there is no workflow "${str('workflow_id')}" (see list_workflows)` };
      const missing = await missingCredentials(turn.engine.credentials, workflow);
      if (missing.length > 0)
        return {
          refused: `${workflow.id} cannot run: it needs ${missing.join(', ')}. Set it with \`handoff credentials set ${missing[0]}\` (or in the chat's card), then run it`,
        };
      return { summary: `Run "${workflow.name}" (${workflow.id}) now`, input: { workflow_id: workflow.id } };
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
      // The words that answer saves are on the card: the person says yes to exactly them.
      const chosen = str('action') === 'approve_suggested' ? decision.suggested_action : str('action');
      let words;
      try {
        words = approvedWords(chosen, wordsFor(decision.drafts, chosen), {
          body: str('body') || undefined,
          title: str('title') || undefined,
        });
      } catch (error) {
        if (error instanceof InvalidInputError) return { refused: error.message };
        throw error;
      }
      const saying = words
        ? `, saving${words.title ? ` “${words.title}”:` : ':'} “${words.body}”${words.by === 'offline' ? ' (an offline draft)' : ''}`
        : '';
      return { summary: `Answer "${decision.subject}" with ${str('action')}${saying}`, input };
    }
    case 'add_rule':
      return { summary: `Add a rule: ${JSON.stringify(input.match)} → ${str('action')}`, input };
    case 'revoke_rule': {
      const known =
        str('rule_id') !== '' && (await turn.engine.store.get('rules', str('rule_id'))) !== undefined; // by key
      if (!known) return { refused: `there is no rule "${str('rule_id')}" (see list_rules)` };
      return { summary: `Revoke rule ${str('rule_id')}`, input };
    }
  }
}

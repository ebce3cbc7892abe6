/**
 * The Builder's tools: validate a drafted config (errors come back as a result the model
 * can fix; a valid one becomes the chat's draft, and what changed is said in code), show the
 * draft in plain words, preview it against real items (acting on nothing), save it (behind
 * the confirmation gate).
 */
import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { updateChat } from '../chats/chat-repository.ts';
import type { ChatTurn } from './chat-turn.ts';
import { gatedCallback } from './confirm-gate.ts';
import { checkDraft, currentDraft } from './draft.ts';
import { previewWorkflow } from './preview.ts';
import { cardDeps } from './chat-turn.ts';
import { cardLines, cardPreview, whatChanged, workflowCard } from './workflow-card.ts';

export function builderTools(turn: ChatTurn): Tool[] {
  return [
    tool({
      name: 'validate_workflow',
      description:
        "Validates a workflow config (JSON object). Valid: it becomes the chat's draft, and `changed` says what differs from the draft before. Invalid: the errors come back; fix them and call again.",
      inputSchema: z.object({ config: z.unknown() }),
      callback: async ({ config }) => {
        const checked = await checkDraft(turn, config);
        if (!checked.ok) return { ok: false, errors: [checked.error] };
        const workflow = checked.workflow;
        const before = await currentDraft(turn);
        await updateChat(turn.engine.store, turn.chatId, () => ({ draft: { ...workflow } }));
        const deps = cardDeps(turn);
        const after = await workflowCard(deps, workflow);
        const changed = before ? whatChanged(await workflowCard(deps, before), after) : null;
        if (changed) turn.log.changed = changed;
        return {
          ok: true,
          workflow_id: workflow.id,
          name: workflow.name,
          trigger: workflow.trigger,
          /** When it runs, in words with the profile's time zone. */
          when: after.schedule,
          source: workflow.source.type,
          ...(changed ? { changed } : {}),
        };
      },
    }),
    tool({
      name: 'show_draft',
      description:
        "Shows the chat's draft workflow in plain words (source, schedule, instructions, actions, threshold, credentials).",
      inputSchema: z.object({}),
      callback: async () => {
        const draft = await currentDraft(turn);
        if (!draft) return { ok: false, error: 'this chat has no draft workflow yet' };
        const card = await workflowCard(cardDeps(turn), draft, turn.log.previewOf(draft.id));
        turn.log.card({ kind: 'workflow', state: 'draft', card, changed: [] });
        return { ok: true, workflow_id: draft.id, text: cardLines(card).join('\n') };
      },
    }),
    tool({
      name: 'preview_workflow',
      description:
        "Reads up to 10 real items from the draft's source and shows what the gate would do with each (act, ask, rule). Changes nothing.",
      inputSchema: z.object({ limit: z.number().int().min(1).max(25).optional() }),
      callback: async ({ limit }) => {
        const draft = await currentDraft(turn);
        if (!draft) return { ok: false, error: 'there is no valid draft: call validate_workflow first' };
        const preview = await previewWorkflow(
          {
            store: turn.engine.store,
            credentials: turn.engine.credentials,
            threshold: turn.engine.settings.confidenceThreshold,
          },
          draft,
          limit,
        );
        turn.log.previews.set(draft.id, cardPreview(preview));
        if (preview.ok)
          turn.log.card({ kind: 'preview', workflow_id: draft.id, count: preview.count, rows: preview.rows });
        return preview;
      },
    }),
    tool({
      name: 'save_workflow',
      description: "Saves the chat's validated draft as a workflow. The person is asked to confirm first.",
      inputSchema: z.object({}),
      callback: gatedCallback('save_workflow'),
    }),
  ];
}

/**
 * The Operator's tools over saved workflows: show one in plain words, pause, resume and
 * rename it (each reversible, so done at once and said), and delete it (behind the
 * confirmation gate). A workflow that lacks credentials is never resumed.
 */
import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { errorMessage } from '../errors/index.ts';
import { newestRunsOf } from '../runs/run-repository.ts';
import { getScheduleState, setPaused, pausedFor } from '../schedules/schedules.ts';
import { getWorkflow, saveWorkflow } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';
import { cardDeps, type ChatTurn } from './chat-turn.ts';
import { gatedCallback } from './confirm-gate.ts';
import { cardLines, missingCredentials, workflowCard } from './workflow-card.ts';

const WorkflowId = z.object({ workflow_id: z.string() });

export function workflowTools(turn: ChatTurn): Tool[] {
  const store = turn.engine.store;
  const find = (id: string) => getWorkflow(store, id).catch(() => null);
  /** Where schedules live apart from the store (AWS), they are told. */
  const changed = (id: string) => turn.engine.onWorkflowChange?.(id, 'saved', turn.engine.workspace);
  const unknown = (id: string) => ({ ok: false, error: `there is no workflow "${id}" (see list_workflows)` });
  return [
    tool({
      name: 'show_workflow',
      description:
        'Shows a saved workflow in plain words, whether it is active or paused, and its last runs.',
      inputSchema: WorkflowId,
      callback: async ({ workflow_id }) => {
        const workflow = await find(workflow_id);
        if (!workflow) return unknown(workflow_id);
        const card = await workflowCard(cardDeps(turn), workflow);
        const state = await stateOf(turn, workflow);
        turn.log.card({ kind: 'workflow', state: state.paused ? 'paused' : 'active', card, changed: [] });
        const runs = await newestRunsOf(store, workflow.id, 3);
        return {
          ok: true,
          workflow_id: workflow.id,
          text: [
            ...cardLines(card).filter((l) => !l.startsWith('  Preview')),
            `  State: ${state.words}`,
            `  Last runs: ${runs.map((r) => `${r.id} ${r.status}`).join(', ') || 'none yet'}`,
          ].join('\n'),
        };
      },
    }),
    tool({
      name: 'pause_workflow',
      description: "Pauses a workflow's schedule (reversible: resume_workflow).",
      inputSchema: WorkflowId,
      callback: async ({ workflow_id }) => {
        try {
          const view = await setPaused(store, workflow_id, true);
          await changed(view.workflow_id);
          return { ok: true, text: `Paused ${view.workflow_id}: it does not fire until you resume it.` };
        } catch (error) {
          return { ok: false, error: errorMessage(error) };
        }
      },
    }),
    tool({
      name: 'resume_workflow',
      description: "Resumes a paused workflow's schedule. Refused while a credential it needs is not set.",
      inputSchema: WorkflowId,
      callback: async ({ workflow_id }) => {
        const workflow = await find(workflow_id);
        if (!workflow) return unknown(workflow_id);
        const missing = await missingCredentials(turn.engine.credentials, workflow);
        if (missing.length > 0)
          return {
            ok: false,
            error: `${workflow.id} stays paused: it needs ${missing.join(', ')}. Set it with \`handoff credentials set ${missing[0]}\`, then resume it`,
          };
        if (workflow.trigger.schedule === undefined) {
          if (await getScheduleState(store, workflow.id)) await store.delete('schedules', workflow.id);
          await changed(workflow.id);
          return { ok: true, text: `${workflow.id} can run again (it runs when you start it).` };
        }
        const view = await setPaused(store, workflow.id, false, new Date(), turn.engine.credentials);
        await changed(workflow.id);
        return {
          ok: true,
          text: `Resumed ${view.workflow_id}; next: ${view.next.map((f) => f.local).join(', ') || '—'}.`,
        };
      },
    }),
    tool({
      name: 'rename_workflow',
      description: 'Renames a saved workflow (its display name; the id stays, so runs and rules keep it).',
      inputSchema: z.object({ workflow_id: z.string(), name: z.string() }),
      callback: async ({ workflow_id, name }) => {
        const workflow = await find(workflow_id);
        if (!workflow) return unknown(workflow_id);
        const title = name.trim();
        if (title === '') return { ok: false, error: 'the new name is empty' };
        await saveWorkflow(store, { ...workflow, name: title });
        await changed(workflow.id);
        return { ok: true, text: `Renamed ${workflow.id}: "${workflow.name}" → "${title}".` };
      },
    }),
    tool({
      name: 'delete_workflow',
      description: 'Deletes a saved workflow. The person is asked to confirm first.',
      inputSchema: WorkflowId,
      callback: gatedCallback('delete_workflow'),
    }),
  ];
}

/** Whether a saved workflow is active or paused, in words (and what it waits for). */
async function stateOf(turn: ChatTurn, workflow: Workflow): Promise<{ paused: boolean; words: string }> {
  const state = await getScheduleState(turn.engine.store, workflow.id);
  const needs = await pausedFor(turn.engine.store, workflow.id);
  const missing = await missingCredentials(turn.engine.credentials, workflow);
  if (needs.length > 0 || missing.length > 0)
    return { paused: true, words: `paused: needs ${[...new Set([...needs, ...missing])].join(', ')}` };
  return state?.paused ? { paused: true, words: 'paused' } : { paused: false, words: 'active' };
}

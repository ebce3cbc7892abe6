/** The assistant's read-only tools: what exists in the workspace. None changes anything. */
import { tool, type Tool } from '@strands-agents/sdk';
import { z } from 'zod';
import { listEntries, statusOf } from '../integrations/registry.ts';
import { rulesInWords } from './workspace-facts.ts';
import { listPending } from '../runs/decision-repository.ts';
import { latestRuns } from '../runs/run-repository.ts';
import { toPendingJson } from '../runs/views.ts';
import { publicSourceFields } from '../sources/check.ts';
import { SOURCE_TYPES } from '../sources/source-types.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { ScheduleStateSchema } from '../schedules/schedules.ts';
import { listRecords } from '../store/records.ts';
import { listTemplates, readTemplate } from '../workflows/templates.ts';
import { parseWorkflow } from '../workflows/load.ts';
import { errorMessage } from '../errors/index.ts';
import type { ChatTurn } from './chat-turn.ts';

/** The registry's entries with what each still needs (which credentials exist). */
export async function integrationsOf(
  turn: ChatTurn,
): Promise<{ name: string; description: string; tools: string[]; status: string }[]> {
  const have = await turn.engine.credentials.names();
  return (await listEntries(turn.engine.store)).map((reg) => ({
    name: reg.entry.name,
    description: reg.entry.description,
    tools: Object.keys(reg.entry.templates),
    status: statusOf(reg, have, process.env),
  }));
}

/** The sources workflows of this workspace already read, and the source types with their actions. */
export async function sourcesOf(turn: ChatTurn) {
  const known = (await listWorkflows(turn.engine.store)).map((w) => ({
    workflow_id: w.id,
    source: publicSourceFields(w.source),
  }));
  const types = Object.fromEntries(Object.entries(SOURCE_TYPES).map(([t, v]) => [t, v.actions]));
  return { types, known };
}

/** Tools every specialist of the assistant may use to look around. */
export function discoveryTools(turn: ChatTurn): Tool[] {
  const store = turn.engine.store;
  return [
    tool({
      name: 'list_templates',
      description: 'Lists the workflow templates (id, name, description, credentials each needs).',
      inputSchema: z.object({}),
      callback: async () => ({
        templates: (await listTemplates()).map(({ id, name, description, credentials }) => ({
          id,
          name,
          description,
          credentials,
        })),
      }),
    }),
    tool({
      name: 'get_template',
      description: 'Returns one template as a workflow config (JSON) to start a draft from.',
      inputSchema: z.object({ template_id: z.string() }),
      callback: async ({ template_id }) => {
        try {
          return {
            template_id,
            config: parseWorkflow(await readTemplate(template_id), `${template_id}.yaml`),
          };
        } catch (error) {
          return { error: errorMessage(error) };
        }
      },
    }),
    tool({
      name: 'list_integrations',
      description:
        'Lists the integration registry: entries, their tools and status (which credentials exist). Actions may name only these as <entry>__<tool>.',
      inputSchema: z.object({}),
      callback: async () => ({ integrations: await integrationsOf(turn) }),
    }),
    tool({
      name: 'list_sources',
      description:
        'Lists the source types (and the actions each can carry out) and the sources existing workflows read.',
      inputSchema: z.object({}),
      callback: async () => sourcesOf(turn),
    }),
    tool({
      name: 'list_workflows',
      description:
        'Lists the saved workflows (id, name, trigger, and whether it is paused and what it needs).',
      inputSchema: z.object({}),
      callback: async () => {
        const paused = new Map(
          (await listRecords(store, 'schedules', ScheduleStateSchema)).map((s) => [s.workflow_id, s]),
        );
        return {
          workflows: (await listWorkflows(store)).map((w) => ({
            id: w.id,
            name: w.name,
            trigger: w.trigger,
            paused: paused.get(w.id)?.paused === true,
            ...(paused.get(w.id)?.needs?.length ? { needs: paused.get(w.id)!.needs } : {}),
          })),
        };
      },
    }),
    tool({
      name: 'list_runs',
      description: 'Lists the 10 newest runs.',
      inputSchema: z.object({}),
      callback: async () => ({
        runs: (await latestRuns(store, 10)).runs.map((r) => ({
          run_id: r.id,
          workflow_id: r.workflow_id,
          status: r.status,
        })),
      }),
    }),
    tool({
      name: 'list_pending',
      description: 'Lists the decisions waiting for the person.',
      inputSchema: z.object({}),
      callback: async () => ({ pending: (await listPending(store)).map(toPendingJson) }),
    }),
    tool({
      name: 'list_rules',
      description: 'Lists the live rules (yours and learned), each in words with where it came from.',
      inputSchema: z.object({}),
      callback: async () => ({ rules: await rulesInWords(store) }),
    }),
  ];
}

/**
 * Handoff as an MCP server: other agents and MCP hosts list and run workflows and see and
 * answer the questions they ask. Every question is put to the person through the host
 * (elicitation); a host that cannot ask, a decline or no answer in time is a skip. No tool
 * acts without the gate: a run acts only on what its gate clears, and `decide` records
 * only what the person chose in the host's own form.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage, HandoffError, InvalidInputError } from '../errors/index.ts';
import { allowedActions } from '../runs/decide.ts';
import { getDecision, listPending } from '../runs/decision-repository.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { createRunFor, executeRun } from '../runs/start-run.ts';
import { summarise, toPendingJson } from '../runs/views.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { askHost } from './ask-host.ts';
import { settle } from './settle.ts';
import { pendingOfRun } from '../runs/decision-repository.ts';
import { plural } from '../text/plural.ts';

/** How long the person has to answer one question set in the host, by default. */
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;

export interface McpServerOptions {
  /** How long the host's person has to answer, before every question is skipped. */
  askTimeoutMs?: number;
}

function reply(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A refusal the caller can act on: one line, and nothing was changed. */
function refusal(error: unknown): CallToolResult {
  if (!(error instanceof HandoffError)) throw error;
  return { content: [{ type: 'text', text: errorMessage(error) }], isError: true };
}

/** Builds the MCP server over one engine (one workspace's store). */
export function buildMcpServer(engine: EngineDeps, options: McpServerOptions = {}): McpServer {
  const timeoutMs = options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
  const server = new McpServer({ name: 'handoff', version: '0.1.0' });

  server.registerTool(
    'list_workflows',
    {
      description: 'The workflows Handoff can run: id, name, threshold and the actions each may take.',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const workflows = await listWorkflows(engine.store);
      return reply({
        workflows: workflows.map((w) => ({
          id: w.id,
          name: w.name,
          confidence_threshold: w.confidence_threshold ?? engine.settings.confidenceThreshold,
          actions: w.actions.map((a) => ({ name: a.name, irreversible: a.irreversible === true })),
        })),
      });
    },
  );

  server.registerTool(
    'run_workflow',
    {
      description:
        'Runs a workflow now. Sure items are handled by its gate; the unsure ones are put to the person through this host in one form. ' +
        'An item nobody answers (no elicitation, declined, timed out) is skipped: nothing is done to it.',
      inputSchema: { workflow_id: z.string().min(1).describe('The id list_workflows gave.') },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async ({ workflow_id }, extra) => {
      try {
        const created = await createRunFor(engine, workflow_id, { kind: 'manual', detail: 'mcp' });
        let run = await executeRun(engine, created);
        const asked = run.status === 'waiting' ? await pendingOfRun(engine.store, run.id) : [];
        if (asked.length === 0) return reply({ run: summarise(run), questions: [] });
        const intro = `Handoff's run of ${workflow_id} set aside ${plural(asked.length, 'item')} it is not sure about. Choose what to do with each; one left empty is skipped.`;
        const answer = await askHost(server.server, asked, intro, {
          timeoutMs,
          relatedRequestId: extra.requestId,
          signal: extra.signal,
        });
        const settled = await settle(engine, run.id, asked, answer);
        run = settled.run;
        return reply({ run: summarise(run), questions: settled.settled });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.registerTool(
    'list_pending',
    {
      description: 'The questions waiting for the person, across runs (as `handoff pending --json`).',
      annotations: { readOnlyHint: true },
    },
    async () => reply({ pending: (await listPending(engine.store)).map(toPendingJson) }),
  );

  server.registerTool(
    'decide',
    {
      description:
        'Proposes an answer to one waiting question. The person confirms or changes it through this host; ' +
        'if they cannot be asked, decline, or do not answer in time, the question is skipped and nothing is done.',
      inputSchema: {
        decision_id: z.string().min(1),
        action: z
          .string()
          .min(1)
          .describe('One of the options list_pending gave, approve_suggested or skip.'),
        note: z.string().optional().describe('Why: what Handoff learns from.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    async ({ decision_id, action, note }, extra) => {
      try {
        const decision = await getDecision(engine.store, decision_id);
        if (decision.status !== 'pending')
          return refusal(
            new InvalidInputError(
              `decision ${decision_id} is not waiting (${decision.status}); answers cannot be changed`,
            ),
          );
        const allowed = allowedActions(decision);
        if (!allowed.includes(action))
          return refusal(
            new InvalidInputError(
              `"${action}" is not an option for decision ${decision_id}; choose one of: ${allowed.join(', ')}`,
            ),
          );
        const intro = `An agent proposes "${action}" for "${decision.subject}" from ${decision.sender}${note ? ` (${note})` : ''}. Confirm it or choose another.`;
        const answer = await askHost(server.server, [decision], intro, {
          timeoutMs,
          relatedRequestId: extra.requestId,
          signal: extra.signal,
          defaults: { [decision.id]: action },
        });
        const settled = await settle(engine, decision.run_id, [decision], answer);
        return reply({ run: summarise(settled.run), questions: settled.settled });
      } catch (error) {
        return refusal(error);
      }
    },
  );
  return server;
}

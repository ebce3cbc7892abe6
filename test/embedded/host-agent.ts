/**
 * A host's own agent for the embedded-gate tests: a scripted model and two host tools,
 * `create_ticket` (reversible) and `delete_repo` (irreversible), whose bodies count their calls.
 */
import { Agent, tool, type ToolResultBlock } from '@strands-agents/sdk';
import { z } from 'zod';
import {
  embeddedGate,
  gateFields,
  type EmbeddedGate,
  type EmbeddedGateOptions,
} from '../../shared/embedded/index.ts';
import { ScriptedModel, type ToolCall } from '../support/scripted-model.ts';

export interface HostAgent {
  agent: Agent;
  gate: EmbeddedGate;
  /** How many times each tool body ran. */
  bodies: { create_ticket: number; delete_repo: number };
}

/** The host's agent: the first turn makes `calls`, the next ones `later[i]`, then it says done. */
export function hostAgent(
  calls: ToolCall[],
  options: Partial<EmbeddedGateOptions>,
  later: ToolCall[][] = [],
  secret = 'host-secret-token',
): HostAgent {
  const bodies = { create_ticket: 0, delete_repo: 0 };
  const createTicket = tool({
    name: 'create_ticket',
    description: 'File a ticket in the tracker.',
    inputSchema: z.object({ title: z.string(), ...gateFields }),
    callback: ({ title }) => {
      bodies.create_ticket += 1;
      return { filed: title, auth: secret.length > 0 }; // the host's own credential stays in its closure
    },
  });
  const deleteRepo = tool({
    name: 'delete_repo',
    description: 'Delete a repository. Cannot be undone.',
    inputSchema: z.object({ repo: z.string(), ...gateFields }),
    callback: ({ repo }) => {
      bodies.delete_repo += 1;
      return { deleted: repo };
    },
  });
  const turns = [calls, ...later];
  const model = new ScriptedModel((_results, input) => {
    const turn = input.messages.filter((m) => m.role === 'assistant').length;
    const planned = turns[turn];
    return planned ? { toolCalls: planned } : { text: 'done' };
  });
  const gate = embeddedGate({
    tools: { create_ticket: {}, delete_repo: { irreversible: true } },
    ...options,
  });
  const agent = new Agent({ model, tools: [createTicket, deleteRepo], plugins: [gate], printer: false });
  return { agent, gate, bodies };
}

/** A create_ticket call. */
export function ticket(title: string, confidence: unknown, extra: Record<string, unknown> = {}): ToolCall {
  return { name: 'create_ticket', input: { title, confidence, reasoning: `ticket for ${title}`, ...extra } };
}

/** A delete_repo call. */
export function deletion(repo: string, confidence: unknown): ToolCall {
  return { name: 'delete_repo', input: { repo, confidence, reasoning: `${repo} is unused` } };
}

/** Every tool result the agent's conversation holds, as text, in order. */
export function toolResults(agent: Agent): { status: string; text: string }[] {
  return agent.messages.flatMap((m) =>
    m.content
      .filter((b): b is ToolResultBlock => b.type === 'toolResultBlock')
      .map((b) => ({
        status: b.status,
        text: b.content.map((c) => ('text' in c ? c.text : JSON.stringify(c))).join(''),
      })),
  );
}

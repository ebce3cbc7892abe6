/**
 * Asks the person through the MCP host (elicitation) about a run's set-aside items: one
 * form for all of them, or one for a single decision. A host without elicitation, a
 * person who declines, cancels or does not answer in time: nobody answered.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors/index.ts';
import { allowedActions } from '../runs/decide.ts';
import type { Decision } from '../records/runs.ts';

/** What the host brought back: answers by decision id, or why nobody answered. */
export type HostReply =
  | { kind: 'answered'; answers: Map<string, { action: string; note: string | null }> }
  | { kind: 'unreachable'; reason: string };

export interface AskOptions {
  timeoutMs: number;
  /** The tool call the question belongs to (over HTTP, it travels on that call's stream). */
  relatedRequestId?: string | number;
  signal?: AbortSignal;
  /** An answer proposed for a decision, offered as its field's default (the person still confirms it). */
  defaults?: Record<string, string>;
}

type FormSchema = ElicitRequestFormParams['requestedSchema'];

/** The form's field for decision `i` (elicitation fields are flat: one per question). */
function field(i: number): string {
  return `q${i + 1}`;
}

/** Asks about every decision in one form; each field offers that decision's options. */
export async function askHost(
  server: Server,
  decisions: readonly Decision[],
  intro: string,
  options: AskOptions,
): Promise<HostReply> {
  if (!server.getClientCapabilities()?.elicitation)
    return { kind: 'unreachable', reason: 'the MCP host cannot ask the person (no elicitation support)' };
  const properties: FormSchema['properties'] = {};
  for (const [i, d] of decisions.entries())
    properties[field(i)] = {
      type: 'string',
      title: `${d.subject} (from ${d.sender})`,
      description: `Suggested: ${d.suggested_action} at confidence ${d.confidence.toFixed(2)}. ${d.reasoning}`,
      enum: allowedActions(d),
      ...(options.defaults?.[d.id] ? { default: options.defaults[d.id] } : {}),
    };
  properties.note = {
    type: 'string',
    title: 'Note',
    description: 'Why (optional): what Handoff learns from.',
  };
  let result;
  try {
    result = await server.elicitInput(
      { mode: 'form', message: intro, requestedSchema: { type: 'object', properties } },
      {
        timeout: options.timeoutMs,
        ...(options.relatedRequestId !== undefined ? { relatedRequestId: options.relatedRequestId } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
  } catch (error) {
    return {
      kind: 'unreachable',
      reason: `the person was not reached through the MCP host (${errorMessage(error)})`,
    };
  }
  if (result.action !== 'accept')
    return {
      kind: 'unreachable',
      reason: `the person ${result.action === 'decline' ? 'declined' : 'cancelled'} the question`,
    };
  const content = result.content ?? {};
  const note = typeof content.note === 'string' && content.note.trim() ? content.note.trim() : null;
  const answers = new Map<string, { action: string; note: string | null }>();
  for (const [i, d] of decisions.entries()) {
    const action = content[field(i)];
    if (typeof action === 'string' && allowedActions(d).includes(action)) answers.set(d.id, { action, note });
  }
  return { kind: 'answered', answers };
}

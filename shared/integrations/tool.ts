import { HandoffError } from '../errors/index.ts';
import type { ServerEntry } from './servers.ts';

/** An integration failed; its message has already been redacted of every credential. */
export class IntegrationError extends HandoffError {}

/** What a tool call returned, as text for the model or the audit. */
export interface ToolOutput {
  text: string;
  isError: boolean;
}

/** The hints a server gives about a tool (MCP tool annotations). Untrusted, so only ever used to ask more. */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** One tool of one connected entry, before Handoff decides who may call it. */
export interface IntegrationTool {
  /** The entry's name. */
  server: string;
  /** The tool's name on its server. */
  tool: string;
  /** `<entry>__<tool>`: the name the model or a workflow action uses. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  hints: ToolHints;
  invoke(args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput>;
}

/** Separates the entry from the tool in a qualified name: `linear__create_issue`. */
export const QUALIFIER = '__';

/** The qualified name: `<entry>__<tool>`, tool name lowered to [a-z0-9_], at most 64 characters. */
export function qualifiedName(server: string, tool: string): string {
  const local = tool
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `${server}${QUALIFIER}${local || 'tool'}`.slice(0, 64);
}

/** The entry named by a qualified name, or null when the name is not one. */
export function serverOf(name: string): string | null {
  const at = name.indexOf(QUALIFIER);
  return at > 0 ? name.slice(0, at) : null;
}

function matches(patterns: readonly string[], tool: IntegrationTool): boolean {
  const local = tool.name.slice(tool.server.length + QUALIFIER.length);
  return patterns.some((p) =>
    p.endsWith('*')
      ? tool.tool.startsWith(p.slice(0, -1)) || local.startsWith(p.slice(0, -1))
      : tool.tool === p || local === p,
  );
}

/**
 * Whether a tool changes the world: listed in `writes`, or not vouched for as
 * read-only (by `reads` or the server's `readOnlyHint: true`). Doubt means it does.
 */
export function changesWorld(entry: ServerEntry, tool: IntegrationTool): boolean {
  if (matches(entry.writes, tool)) return true;
  if (matches(entry.reads, tool)) return false;
  return tool.hints.readOnlyHint !== true;
}

/**
 * Whether the gate must always ask before this tool runs: listed in `irreversible`,
 * or a world-changing tool its server does not declare `destructiveHint: false` for
 * (the MCP default for a non-read-only tool is destructive).
 */
export function isIrreversible(entry: ServerEntry, tool: IntegrationTool): boolean {
  if (!changesWorld(entry, tool)) return false;
  return matches(entry.irreversible, tool) || tool.hints.destructiveHint !== false;
}

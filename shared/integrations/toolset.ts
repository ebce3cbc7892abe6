import { BeforeToolCallEvent, FunctionTool, type Agent } from '@strands-agents/sdk';
import type { Credentials } from '../credentials/credentials.ts';
import { redact, redactedMessage, type Secret } from '../credentials/secret.ts';
import type { GatePolicy } from '../gate/verdict.ts';
import type { ItemSource } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import { IntegrationActionSource, type IntegrationAction } from './actions.ts';
import { connectAgentCore } from './agentcore-code-interpreter.ts';
import { connectMcp, type ServerConnection } from './mcp-connect.ts';
import { listEntries, statusOf } from './registry.ts';
import { requiredCredentials, type ServerEntry } from './servers.ts';
import { SlackClient, slackTools } from './slack.ts';
import { changesWorld, IntegrationError, isIrreversible, serverOf, type IntegrationTool } from './tool.ts';

export interface IntegrationToolsOptions {
  /** Entries whose read-only tools the model gets. */
  servers?: readonly string[];
  /** The workflow's declared action names: each `<entry>__<tool>` connects its entry too. */
  actions?: readonly string[];
  /** PATH for stdio children, AWS detection. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** For the Slack client. */
  fetch?: typeof fetch;
  /** Per connection attempt and per call. */
  timeoutMs?: number;
}

/** A run's integrations: read-only tools for the model, world-changing ones as gated actions. */
export interface IntegrationToolset {
  /** Read-only tools, for the executor to append to its own. */
  tools: FunctionTool[];
  /** Every tool of every connected entry, by `<entry>__<tool>`, for the gate to carry out. */
  actions: ReadonlyMap<string, IntegrationAction>;
  /** Entries asked for that could not be used this run, with why (redacted). */
  problems: { server: string; status: string }[];
  /** True for the name (qualified or as on its server) of a tool that changes the world. */
  isWorldChanging(toolName: string): boolean;
  /** The workflow's source, with `<entry>__<tool>` actions carried out on the integration. */
  wrapSource(source: ItemSource): ItemSource;
  /** The declared actions, with every irreversible integration action marked so: the gate always asks. */
  gatePolicy(declared: GatePolicy['actions']): GatePolicy['actions'];
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MODEL_RESULT_CHARS = 8_000;
/** The executor's own tools: a server tool of the same raw name is never taken for one of them. */
const EXECUTOR_TOOLS = new Set(['recall_rules', 'fetch_items', 'read_item', 'submit_action', 'finish_batch']);

/**
 * Connects the integrations a run uses and splits their tools: the read-only ones
 * become tools the model may call; every world-changing one becomes an action that
 * only the gate carries out (see docs/integrations.md). Results and errors are
 * redacted of every credential in use.
 */
export async function integrationTools(
  store: Store,
  credentials: Credentials,
  opts: IntegrationToolsOptions = {},
): Promise<IntegrationToolset> {
  const env = opts.env ?? process.env;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const wanted = new Set([
    ...(opts.servers ?? []),
    ...(opts.actions ?? []).flatMap((a) => serverOf(a) ?? []),
  ]);
  const registry = await listEntries(store);
  const have = await credentials.names();
  const secrets: Secret[] = [];
  const problems: IntegrationToolset['problems'] = [];
  const connections: ServerConnection[] = [];
  const connected = new Set<string>();
  const tools: FunctionTool[] = [];
  const actions = new Map<string, IntegrationAction>();
  const worldChanging = new Set<string>();

  for (const server of wanted) {
    const reg = registry.find((r) => r.entry.name === server);
    const status = reg ? statusOf(reg, have, env) : `error: no integration named ${server}`;
    if (!reg || status !== 'ready') {
      problems.push({ server, status });
      continue;
    }
    let connection: ServerConnection;
    try {
      const values = await credentials.resolve(requiredCredentials(reg.entry));
      secrets.push(...values.values());
      connection = await connect(reg.entry, values, { env, timeoutMs, fetch: opts.fetch ?? fetch });
    } catch (error) {
      problems.push({ server, status: `error: ${redactedMessage(error, secrets)}` });
      continue;
    }
    connections.push(connection);
    connected.add(server);
    for (const tool of connection.tools) {
      const call = guarded(tool, secrets, timeoutMs);
      const writes = changesWorld(reg.entry, tool);
      actions.set(tool.name, {
        name: tool.name,
        server,
        tool: tool.tool,
        changesWorld: writes,
        irreversible: isIrreversible(reg.entry, tool),
        inputSchema: tool.inputSchema,
        template: reg.entry.templates[tool.tool] ?? reg.entry.templates[tool.name.slice(server.length + 2)],
        call,
      });
      if (writes) {
        worldChanging.add(tool.name);
        if (!EXECUTOR_TOOLS.has(tool.tool)) worldChanging.add(tool.tool);
      } else tools.push(modelTool(reg.entry, tool, call));
    }
  }

  return {
    tools,
    actions,
    problems,
    isWorldChanging: (name) => worldChanging.has(name),
    wrapSource: (source) => new IntegrationActionSource(source, actions, connected),
    gatePolicy: (declared) =>
      new Map(
        [...declared].map(([name, d]) => [
          name,
          { irreversible: d.irreversible || !!actions.get(name)?.irreversible },
        ]),
      ),
    close: async () => {
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

/**
 * A BeforeToolCallEvent hook that cancels any direct call to a world-changing
 * integration tool (say, a raw McpClient someone handed the agent): such a tool
 * runs only as an action, through submit_action and the gate.
 */
export function gateWorldChangingTools(isWorldChanging: (toolName: string) => boolean) {
  return (event: BeforeToolCallEvent): void => {
    const name = event.toolUse.name;
    if (!isWorldChanging(name)) return;
    event.cancel =
      `${name} changes the world, so it is never called directly; nothing was done. ` +
      'Propose it with submit_action (action "<integration>__<tool>") and the gate decides.';
  };
}

/** Gives the executor the toolset's read-only tools, and the hook that stops direct world-changing calls. */
export function attachIntegrations(
  agent: Agent,
  toolset: IntegrationToolset,
  servers?: readonly string[],
): void {
  const tools = servers
    ? toolset.tools.filter((t) => servers.includes(serverOf(t.name) ?? ''))
    : toolset.tools;
  if (tools.length > 0) agent.toolRegistry.add(tools);
  agent.addHook(BeforeToolCallEvent, gateWorldChangingTools(toolset.isWorldChanging));
}

async function connect(
  entry: ServerEntry,
  values: ReadonlyMap<string, Secret>,
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; fetch: typeof fetch },
): Promise<ServerConnection> {
  const t = entry.transport;
  if (t.kind === 'slack') {
    const client = new SlackClient(values.get(t.token)!, t.base_url, opts.fetch);
    return { tools: slackTools(entry, client), close: async () => {} };
  }
  if (t.kind === 'agentcore') return connectAgentCore(entry, opts);
  return connectMcp(entry, values, opts);
}

/** The tool call with a time limit, its output and its errors redacted. */
function guarded(
  tool: IntegrationTool,
  secrets: readonly Secret[],
  timeoutMs: number,
): IntegrationAction['call'] {
  return async (args) => {
    try {
      const output = await tool.invoke(args, AbortSignal.timeout(timeoutMs));
      return { text: redact(output.text, secrets), isError: output.isError };
    } catch (error) {
      throw new IntegrationError(redactedMessage(error, secrets));
    }
  };
}

function modelTool(entry: ServerEntry, tool: IntegrationTool, call: IntegrationAction['call']): FunctionTool {
  return new FunctionTool({
    name: tool.name,
    description: `[${entry.title}, read-only] ${tool.description}`.slice(0, 1_000),
    inputSchema: tool.inputSchema as never,
    callback: async (input) => {
      const args =
        input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      const output = await call(args);
      const text = output.text.slice(0, MODEL_RESULT_CHARS);
      if (output.isError) throw new IntegrationError(`${tool.name} failed: ${text}`);
      return text;
    },
  });
}

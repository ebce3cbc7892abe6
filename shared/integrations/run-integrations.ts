import type { Agent } from '@strands-agents/sdk';
import type { Credentials } from '../credentials/credentials.ts';
import type { GatePolicy } from '../gate/verdict.ts';
import type { ItemSource } from '../sources/source.ts';
import type { Store } from '../store/store.ts';
import { serverOf } from './tool.ts';

/** One run's integrations, as the engine uses them (see docs/integrations.md, "Wiring"). */
export interface RunIntegrations {
  /** Entries asked for that cannot be used this run, with why (redacted): for the run's feed. */
  problems: readonly { server: string; status: string }[];
  /** The workflow's source, with `<entry>__<tool>` actions carried out on the integration. */
  wrapSource(source: ItemSource): ItemSource;
  /** The declared actions, each irreversible integration action marked so: the gate always asks. */
  gatePolicy(declared: GatePolicy['actions']): GatePolicy['actions'];
  /**
   * Gives an agent the read-only tools (only those of `servers` when given: a specialist's
   * own `tools`) and the hook that stops direct world-changing calls.
   */
  attach(executor: Agent, servers?: readonly string[]): void;
  /** Ends stdio children and HTTP sessions. */
  close(): Promise<void>;
}

export interface RunIntegrationsWanted {
  /** The workflow's declared action names: each `<entry>__<tool>` connects its entry. */
  actions: readonly string[];
  /** Entries whose read-only tools the model gets even though no action names them. */
  servers: readonly string[];
}

/** A run that names no integration: nothing is read, connected or loaded. */
const NONE: RunIntegrations = {
  problems: [],
  wrapSource: (source) => source,
  gatePolicy: (declared) => declared,
  attach: () => {},
  close: async () => {},
};

/**
 * Connects the integrations a run names. A workflow that names none costs nothing: the
 * registry and credentials are not read and the MCP client is not even loaded.
 */
export async function runIntegrations(
  store: Store,
  credentials: Credentials,
  wanted: RunIntegrationsWanted,
): Promise<RunIntegrations> {
  if (wanted.servers.length === 0 && !wanted.actions.some((name) => serverOf(name))) return NONE;
  const { attachIntegrations, integrationTools } = await import('./toolset.ts');
  const toolset = await integrationTools(store, credentials, wanted);
  return {
    problems: toolset.problems,
    wrapSource: (source) => toolset.wrapSource(source),
    gatePolicy: (declared) => toolset.gatePolicy(declared),
    attach: (executor, servers) => attachIntegrations(executor, toolset, servers),
    close: () => toolset.close(),
  };
}

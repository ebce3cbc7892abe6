/**
 * The wiring prepare.ts gets (see docs/integrations.md): per run, connect the
 * integrations the workflow's actions name, wrap its source so the gate carries
 * out `<entry>__<tool>` actions, force irreversible ones to ask, and give the
 * executor the read-only tools plus the hook that stops direct world-changing calls.
 */
import type { Credentials } from '../../../shared/credentials/credentials.ts';
import {
  attachIntegrations,
  integrationTools,
  type IntegrationToolset,
} from '../../../shared/integrations/toolset.ts';
import type { prepareRun } from '../../../shared/runs/prepare.ts';
import type { Store } from '../../../shared/store/store.ts';

type PrepareRun = typeof prepareRun;

const opened: IntegrationToolset[] = [];
let credentialsOf: ((store: Store) => Credentials) | undefined;
let serversFor: readonly string[] = [];

/** Which credential store runs use, and which entries give the model read-only tools. */
export function useIntegrations(opts: {
  credentials: (store: Store) => Credentials;
  servers?: readonly string[];
}) {
  credentialsOf = opts.credentials;
  serversFor = opts.servers ?? [];
}

/** Every toolset opened so far (the last is the current run's). */
export function openedToolsets(): readonly IntegrationToolset[] {
  return opened;
}

export async function wiredPrepareRun(
  real: PrepareRun,
  ...args: Parameters<PrepareRun>
): ReturnType<PrepareRun> {
  const [deps, , workflow] = args;
  const prepared = await real(...args);
  if (!credentialsOf) return prepared;
  const toolset = await integrationTools(deps.store, credentialsOf(deps.store), {
    servers: serversFor,
    actions: workflow.actions.map((a) => a.name),
  });
  opened.push(toolset);
  prepared.ctx.source = toolset.wrapSource(prepared.ctx.source);
  prepared.ctx.policy.actions = toolset.gatePolicy(prepared.ctx.policy.actions);
  attachIntegrations(prepared.executor, toolset);
  return prepared;
}

export async function closeIntegrations(): Promise<void> {
  await Promise.all(opened.splice(0).map((t) => t.close()));
  credentialsOf = undefined;
  serversFor = [];
}

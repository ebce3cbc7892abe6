import { connectAgentCore } from '../integrations/agentcore-code-interpreter.ts';
import { connectMcp } from '../integrations/mcp-connect.ts';
import { statusOf, type RegistryEntry } from '../integrations/registry.ts';
import { requiredCredentials, type ServerEntry } from '../integrations/servers.ts';
import { changesWorld } from '../integrations/tool.ts';
import { redact, redactedMessage, type Secret } from '../credentials/secret.ts';
import { NotifyError } from '../notify/notifier.ts';
import { callSlack } from '../notify/slack-api.ts';
import { broken, ok, type Check, type CheckOutcome } from './check.ts';
import { errorMessage } from '../errors/index.ts';
import { plural } from '../text/plural.ts';

/** A live call for an entry's transport, or undefined when there is none yet. */
export type IntegrationProbe = (reg: RegistryEntry) => Promise<CheckOutcome> | undefined;

/**
 * An entry is configured when it is enabled and either added by the person or has at
 * least one of its credentials set: built-ins nobody set up are not reported as broken.
 */
export function isConfigured(reg: RegistryEntry, have: ReadonlySet<string>): boolean {
  if (reg.disabled) return false;
  return reg.source === 'user' || requiredCredentials(reg.entry).some((name) => have.has(name));
}

/**
 * One check per configured integration: the registry's status (credentials, command,
 * AWS) first, then the transport's live call when a probe has one.
 */
export function integrationChecks(
  entries: readonly RegistryEntry[],
  have: ReadonlySet<string>,
  env: NodeJS.ProcessEnv,
  probe: IntegrationProbe = () => undefined,
): Check[] {
  return entries
    .filter((reg) => isConfigured(reg, have))
    .map((reg) => ({
      name: `integration ${reg.entry.name}`,
      async run() {
        const status = statusOf(reg, have, env);
        if (status !== 'ready') return broken(status);
        return (await probe(reg)) ?? ok('ready: credentials set (no live check for this transport yet)');
      },
    }));
}

/** Where credentials are read from: only ever by name, one at a time. */
export interface CredentialReader {
  get(name: string): Promise<Secret | undefined>;
}

export interface ProbeOptions {
  /** PATH for stdio children, AWS_REGION for AgentCore. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * Each connection's limit; below the doctor's own per-check limit, so a server that does
   * not answer is closed by the probe rather than left running.
   */
  timeoutMs?: number;
}

export const PROBE_TIMEOUT_MS = 15_000;

/**
 * One real call per entry with the stored credentials: an MCP server (stdio or HTTP) is
 * connected and its tools listed, then closed; an AgentCore Code Interpreter or Browser
 * session is started, its tool listed, then stopped; Slack answers `auth.test`. Reasons are redacted
 * of every credential.
 */
export function liveProbe(credentials: CredentialReader, opts: ProbeOptions = {}): IntegrationProbe {
  return (reg) => {
    const t = reg.entry.transport;
    if (t.kind === 'slack') return slackProbe(credentials, t);
    return connectionProbe(reg, credentials, opts);
  };
}

/** Connects the entry as a run would, counts its tools, and closes it. */
async function connectionProbe(
  reg: RegistryEntry,
  credentials: CredentialReader,
  opts: ProbeOptions,
): Promise<CheckOutcome> {
  const secrets = new Map<string, Secret>();
  for (const name of requiredCredentials(reg.entry)) {
    const value = await credentials.get(name);
    if (!value) return broken(`needs credential ${name}`);
    secrets.set(name, value);
  }
  const connectOpts = { env: opts.env ?? process.env, timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS };
  let connection;
  try {
    connection =
      reg.entry.transport.kind === 'agentcore'
        ? await connectAgentCore(reg.entry, connectOpts)
        : await connectMcp(reg.entry, secrets, connectOpts);
  } catch (error) {
    return broken(redactedMessage(error, [...secrets.values()]));
  }
  try {
    const tools = connection.tools.length;
    const reads = connection.tools.filter((tool) => !changesWorld(reg.entry, tool)).length;
    return ok(
      `connected over ${reg.entry.transport.kind}: ${plural(tools, 'tool')}, ${reads} read-only for the model, ` +
        `${tools - reads} only through the gate`,
    );
  } finally {
    await connection.close();
  }
}

/** Slack's `auth.test` with the entry's token. */
async function slackProbe(
  credentials: CredentialReader,
  t: Extract<ServerEntry['transport'], { kind: 'slack' }>,
): Promise<CheckOutcome> {
  const token = await credentials.get(t.token);
  if (!token) return broken(`needs credential ${t.token}`);
  try {
    const who = await callSlack({ token: token.reveal(), channel: '', baseUrl: t.base_url }, 'auth.test', {});
    return ok(`token works: ${String(who.user ?? 'the bot')} in ${String(who.team ?? 'its workspace')}`);
  } catch (error) {
    const reason = error instanceof NotifyError ? error.reason : errorMessage(error);
    return broken(redact(reason, [token]));
  }
}

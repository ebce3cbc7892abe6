import { statusOf, type RegistryEntry } from '../integrations/registry.ts';
import { requiredCredentials } from '../integrations/servers.ts';
import { redact, type Secret } from '../credentials/secret.ts';
import { NotifyError } from '../notify/notifier.ts';
import { callSlack } from '../notify/slack-api.ts';
import { broken, ok, type Check, type CheckOutcome } from './check.ts';

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

/** Live calls Handoff can make itself: Slack's `auth.test` with the entry's token. */
export function liveProbe(credentials: { get(name: string): Promise<Secret | undefined> }): IntegrationProbe {
  return (reg) => {
    const t = reg.entry.transport;
    if (t.kind !== 'slack') return undefined;
    return (async () => {
      const token = await credentials.get(t.token);
      if (!token) return broken(`needs credential ${t.token}`);
      try {
        const who = await callSlack(
          { token: token.reveal(), channel: '', baseUrl: t.base_url },
          'auth.test',
          {},
        );
        return ok(`token works: ${String(who.user ?? 'the bot')} in ${String(who.team ?? 'its workspace')}`);
      } catch (error) {
        const reason =
          error instanceof NotifyError
            ? error.reason
            : error instanceof Error
              ? error.message
              : String(error);
        return broken(redact(reason, [token]));
      }
    })();
  };
}

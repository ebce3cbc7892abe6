/**
 * The doctor's checks for one credential, run in place from the Credentials page: each
 * workflow whose source opens with it (as `handoff sources check`, acting on nothing) and
 * each integration that needs it (its registry status, then its live call).
 */
import type { Credentials } from '../credentials/credentials.ts';
import { listEntries } from '../integrations/registry.ts';
import { requiredCredentials } from '../integrations/servers.ts';
import type { Store } from '../store/store.ts';
import { credentialsOf } from '../workflows/readiness.ts';
import { listWorkflows } from '../workflows/repository.ts';
import { broken, ok, runChecks, type CheckResult } from './check.ts';
import { integrationChecks, liveProbe } from './integrations.ts';
import { sourceChecks } from './source-checks.ts';

/** Every check that uses credential `name`; one saying so when it is not set or nothing uses it. */
export async function checkCredential(
  store: Store,
  credentials: Credentials,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckResult[]> {
  const names = await credentials.names();
  if (!names.has(name))
    return runChecks([{ name, run: async () => broken(`${name} is not set: set it first`) }]);
  const workflows = (await listWorkflows(store)).filter((w) => credentialsOf(w).includes(name));
  const entries = (await listEntries(store)).filter((e) => requiredCredentials(e.entry).includes(name));
  const sources = (await sourceChecks(store, undefined, credentials)).filter((c) =>
    workflows.some((w) => c.name === `source (${w.id})`),
  );
  const integrations = integrationChecks(entries, names, env, liveProbe(credentials, { env }));
  const checks = [...sources, ...integrations];
  if (checks.length === 0)
    return runChecks([{ name, run: async () => ok('set; no workflow or integration uses it yet') }]);
  return runChecks(checks);
}

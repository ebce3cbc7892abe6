import type { Credentials } from '../credentials/credentials.ts';
import type { Model } from '@strands-agents/sdk';
import type { Env } from '../config/env.ts';
import { slackConfigFrom } from '../notify/slack-api.ts';
import { slackSource } from '../notify/slack-source.ts';
import type { NotifyChannel } from '../notify/notifier.ts';
import { readProfile } from '../profile/profile.ts';
import { readStoredSettings } from '../settings/settings.ts';
import type { SourceOpener } from '../sources/check.ts';
import type { Store } from '../store/store.ts';
import { broken, runChecks, type Check, type CheckResult } from './check.ts';
import { learningCheck, modelCheck, notifyCheck, storeCheck } from './checks.ts';
import { sourceChecks } from './source-checks.ts';
import { errorMessage } from '../errors/index.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

/** What the doctor checks with; hosts build it once (see `doctorFromEnv`), tests pass their own. */
export interface DoctorDeps {
  store: Store;
  /** Builds the configured primary model; may throw (a provider this build lacks, a missing key). */
  model: () => Promise<Model>;
  /** One check per configured integration (see integrations.ts). */
  integrations: () => Promise<Check[]>;
  /** The SNS topic check, used when NOTIFY_CHANNEL=sns. */
  sns?: Check;
  /** Where SLACK_* are read from. */
  source?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /** Opens a workflow's source for its check (default: `openSource`, as `handoff sources check`). */
  openSource?: SourceOpener;
  /** The credential store a remote source (IMAP) opens with. */
  credentials?: Credentials;
}

/** The checks for this environment, in the order they are printed (one per workflow's source). */
export async function doctorChecks(env: Env, deps: DoctorDeps): Promise<Check[]> {
  let integrations: Check[];
  try {
    integrations = await deps.integrations();
  } catch (error) {
    const reason = `could not list them: ${errorMessage(error)}`;
    integrations = [{ name: 'integrations', run: async () => broken(reason) }];
  }
  // The channel notices really go to: the profile's, else the one saved in Settings, else NOTIFY_CHANNEL.
  const channel = (await savedChannel(deps.store).catch(() => null)) ?? env.NOTIFY_CHANNEL;
  const slackEnv = await slackSource(deps.credentials, deps.source ?? process.env);
  const slack = () => {
    const config = slackConfigFrom(slackEnv);
    return deps.fetch ? { ...config, fetch: deps.fetch } : config;
  };
  return [
    storeCheck(deps.store, storeWhere(env)),
    modelCheck(env.HANDOFF_MODEL_PROVIDER, deps.model),
    learningCheck(deps.store),
    ...integrations,
    ...(await sourceChecks(deps.store, deps.openSource, deps.credentials)),
    notifyCheck(channel, deps.sns ? { slack, sns: deps.sns } : { slack }),
  ];
}

/** The channel the profile or the Settings page saved, or null. */
async function savedChannel(store: Store): Promise<NotifyChannel | null> {
  return (
    (await readProfile(store)).notify_channel ?? (await readStoredSettings(store))?.notify_channel ?? null
  );
}

/** Runs every check of this environment. */
export async function runDoctor(env: Env, deps: DoctorDeps): Promise<CheckResult[]> {
  return runChecks(await doctorChecks(env, deps));
}

/**
 * The doctor as the environment configures it: the real store (of `workspace`, by id), model,
 * credentials and channels.
 */
export async function doctorFromEnv(
  env: Env,
  source: NodeJS.ProcessEnv = process.env,
  workspace: string = DEFAULT_WORKSPACE,
): Promise<DoctorDeps> {
  const { openStore } = await import('../store/open-store.ts');
  const store = openStore(env, workspace);
  const { credentialsFor } = await import('../credentials/open-credentials.ts');
  const credentials = credentialsFor(env, store, source, workspace);
  return {
    store,
    source,
    credentials,
    model: async () =>
      (await import('../models/provider.ts')).modelFactory(env.HANDOFF_MODEL_PROVIDER)('primary'),
    integrations: async () => {
      // One import at a time: jest's ESM loader races on modules imported concurrently.
      const { listEntries } = await import('../integrations/registry.ts');
      const { integrationChecks, liveProbe } = await import('./integrations.ts');
      return integrationChecks(
        await listEntries(store),
        await credentials.names(),
        source,
        liveProbe(credentials, { env: source }),
      );
    },
    sns: {
      name: 'notify (sns)',
      async run() {
        const { snsTopicCheckIn } = await import('./sns-check.ts');
        return snsTopicCheckIn(env.AWS_REGION, source.NOTIFY_TOPIC_ARN || undefined).run();
      },
    },
  };
}

function storeWhere(env: Env): string {
  return env.USE_DYNAMODB
    ? `DynamoDB table ${env.HANDOFF_TABLE} (${env.DYNAMODB_ENDPOINT ?? env.AWS_REGION ?? "the AWS SDK's default region"})`
    : `JSON files in ${env.HANDOFF_STATE_DIR}`;
}

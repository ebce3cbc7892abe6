import { kmsOnlyCredentials } from '../credentials/open-credentials.ts';
import { emitIn } from '../events/feed.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import type { LinkKey } from '../links/link-key.ts';
import { mirrorFor } from '../memory/open-mirror.ts';
import { modelFactory } from '../models/provider.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { DEFAULT_PAGE_SIZE } from '../runs/wire.ts';
import type { LambdaClients } from './clients.ts';
import { storeForLambda } from './dynamo-client.ts';
import { EventBridgeDispatcher } from './eventbridge-dispatcher.ts';
import { HandoffError } from '../errors/index.ts';
import { notifierFromEnv } from '../notify/from-env.ts';
import { NotifyError, type Notifier } from '../notify/notifier.ts';
import type { ENGINE_OPTIONAL_VARS, ENGINE_VARS, LambdaEnv } from './lambda-env.ts';
import { SecretLinkKey } from './secret-link-key.ts';
import { SnsNotifier } from './sns-notifier.ts';
import { DEFAULT_WORKSPACE, PLATFORM_WORKSPACE } from '../workspaces/names.ts';
import { KEEP_DEFAULT_WORKSPACE_MS, platformOver, type Platform } from '../workspaces/platform.ts';

export type EngineEnv = LambdaEnv<(typeof ENGINE_VARS)[number], (typeof ENGINE_OPTIONAL_VARS)[number]>;

/**
 * The engine as a Lambda function runs it (made once, at module scope): DynamoDB store,
 * each node dispatched through EventBridge, notices to SNS, decision links signed with the
 * key in Secrets Manager and pointing at UI_BASE_URL, the memory mirror the env asks for,
 * integration credentials sealed with KMS (HANDOFF_KMS_KEY_ID).
 * Pass `linkKey` when the function also verifies links (the API), so the key is read once.
 * A function without a notify channel or LINK_KEY_SECRET_ARN gets a notifier or key that
 * fails with one line, should it ever need one.
 */
export function engineForLambda(
  env: EngineEnv,
  clients: LambdaClients,
  linkKey: LinkKey = linkKeyFor(env, clients),
  workspace: string = DEFAULT_WORKSPACE,
): EngineDeps {
  const settings: EngineDeps['settings'] = {
    confidenceThreshold: env.CONFIDENCE_THRESHOLD,
    decisionTtlHours: env.DECISION_TTL_HOURS,
    uiBaseUrl: env.UI_BASE_URL,
    pageSize: DEFAULT_PAGE_SIZE,
  };
  const store = storeForLambda(env, clients.dynamodb, workspace);
  return {
    workspace,
    store,
    models: modelFactory(env.HANDOFF_MODEL_PROVIDER),
    notifier: notifierForLambda(env, clients),
    links: new DecisionLinks(linkKey, () => settings.uiBaseUrl, workspace),
    // KMS under HANDOFF_KMS_KEY_ID, its client made only when a run opens a credential.
    credentials: kmsOnlyCredentials(env.AWS_REGION, store, process.env, workspace),
    mirror: mirrorFor(env, workspace),
    dispatcher: new EventBridgeDispatcher(clients.eventBridge, env.EVENT_BUS_NAME, workspace),
    emit: emitIn(workspace),
    settings,
  };
}

/** The engine of each workspace a function meets, made on first use and kept (per container). */
export type EngineOf = (workspace: string) => EngineDeps;

/** {@link engineForLambda} per workspace, each made once. */
export function lambdaEngines(env: EngineEnv, clients: LambdaClients, linkKey?: LinkKey): EngineOf {
  const engines = new Map<string, EngineDeps>();
  return (workspace) => {
    let engine = engines.get(workspace);
    if (!engine) {
      engine = engineForLambda(env, clients, linkKey ?? linkKeyFor(env, clients), workspace);
      engines.set(workspace, engine);
    }
    return engine;
  };
}

/** The platform (workspaces, API keys) over the table, its engines from `engineOf`. */
export function lambdaPlatform(env: EngineEnv, clients: LambdaClients, engineOf: EngineOf): Platform {
  const store = storeForLambda(env, clients.dynamodb, PLATFORM_WORKSPACE);
  return platformOver(store, engineOf, undefined, KEEP_DEFAULT_WORKSPACE_MS);
}

/**
 * What a function that only marks runs failed needs to tell the person: the notify
 * channel and the run's page under UI_BASE_URL (no link key: a run link is not signed).
 */
export function failureNoticesForLambda(
  env: Pick<EngineEnv, 'NOTIFY_CHANNEL' | 'NOTIFY_TOPIC_ARN' | 'UI_BASE_URL'>,
  clients: Pick<LambdaClients, 'sns' | 'secrets'>,
): Pick<EngineDeps, 'notifier' | 'links'> {
  return {
    notifier: notifierForLambda(env, clients),
    links: new DecisionLinks(linkKeyFor({}, clients), () => env.UI_BASE_URL),
  };
}

/** The link key in LINK_KEY_SECRET_ARN (read once), or one that fails naming the variable. */
export function linkKeyFor(
  env: Pick<EngineEnv, 'LINK_KEY_SECRET_ARN'>,
  clients: Pick<LambdaClients, 'secrets'>,
): LinkKey {
  if (env.LINK_KEY_SECRET_ARN) return new SecretLinkKey(clients.secrets, env.LINK_KEY_SECRET_ARN);
  return { get: () => Promise.reject(unset('LINK_KEY_SECRET_ARN', 'sign or check decision links')) };
}

/**
 * The channel NOTIFY_CHANNEL names (SNS to NOTIFY_TOPIC_ARN, or Slack), failing with
 * NotifyError like any channel. A function without a channel (a Lambda log reaches nobody)
 * gets a notifier that fails visibly, should it ever have to notify.
 */
function notifierForLambda(
  env: Pick<EngineEnv, 'NOTIFY_CHANNEL' | 'NOTIFY_TOPIC_ARN'>,
  clients: Pick<LambdaClients, 'sns'>,
): Notifier {
  if (env.NOTIFY_CHANNEL === 'console')
    return {
      notify: () =>
        Promise.reject(
          new NotifyError('console', 'this Lambda function has no notify channel: set NOTIFY_TOPIC_ARN'),
        ),
    };
  const topic = env.NOTIFY_TOPIC_ARN;
  return notifierFromEnv(env, topic ? { sns: () => new SnsNotifier(clients.sns, topic) } : {});
}

function unset(variable: string, what: string): HandoffError {
  return new HandoffError(`${variable} is not set for this Lambda function, so it cannot ${what}`);
}

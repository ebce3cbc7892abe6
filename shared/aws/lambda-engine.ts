import { emit } from '../events/feed.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import type { LinkKey } from '../links/link-key.ts';
import { mirrorFromEnv } from '../memory/agentcore-mirror.ts';
import { modelFactory } from '../models/provider.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { DEFAULT_PAGE_SIZE } from '../runs/wire.ts';
import { createDocumentClient, DynamoDbStore } from '../store/dynamodb-store.ts';
import type { Store } from '../store/store.ts';
import type { LambdaClients } from './clients.ts';
import { EventBridgeDispatcher } from './eventbridge-dispatcher.ts';
import type { ENGINE_VARS, LambdaEnv } from './lambda-env.ts';
import { SecretLinkKey } from './secret-link-key.ts';
import { SnsNotifier } from './sns-notifier.ts';

export type EngineEnv = LambdaEnv<(typeof ENGINE_VARS)[number]>;

/** The DynamoDB store of the deployment, over the container's client. */
export function storeForLambda(
  env: Pick<EngineEnv, 'HANDOFF_TABLE'>,
  clients: Pick<LambdaClients, 'dynamodb'>,
): Store {
  return new DynamoDbStore(createDocumentClient(clients.dynamodb), env.HANDOFF_TABLE);
}

/**
 * The engine as a Lambda function runs it (made once, at module scope): DynamoDB store,
 * each node dispatched through EventBridge, notices to SNS, decision links signed with the
 * key in Secrets Manager and pointing at UI_BASE_URL, the memory mirror the env asks for.
 * Pass `linkKey` when the function also verifies links (the API), so the key is read once.
 */
export function engineForLambda(
  env: EngineEnv,
  clients: LambdaClients,
  linkKey: LinkKey = new SecretLinkKey(clients.secrets, env.LINK_KEY_SECRET_ARN),
): EngineDeps {
  const settings: EngineDeps['settings'] = {
    confidenceThreshold: env.CONFIDENCE_THRESHOLD,
    decisionTtlHours: env.DECISION_TTL_HOURS,
    uiBaseUrl: env.UI_BASE_URL,
    pageSize: DEFAULT_PAGE_SIZE,
  };
  return {
    store: storeForLambda(env, clients),
    models: modelFactory(env.HANDOFF_MODEL_PROVIDER),
    notifier: new SnsNotifier(clients.sns, env.NOTIFY_TOPIC_ARN),
    links: new DecisionLinks(linkKey, () => settings.uiBaseUrl),
    mirror: mirrorFromEnv(env),
    dispatcher: new EventBridgeDispatcher(clients.eventBridge, env.EVENT_BUS_NAME),
    emit,
    settings,
  };
}

import type { Credentials } from '../credentials/credentials.ts';
import { refusingCredentials } from '../credentials/no-credentials.ts';
import { emitIn } from '../events/feed.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import type { LinkKey } from '../links/link-key.ts';
import { noMirror } from '../memory/mirror.ts';
import { noModels } from '../models/no-model.ts';
import type { ModelFactory } from '../models/provider.ts';
import { DEFAULT_PAGE_SIZE, type EngineDeps } from '../runs/deps.ts';
import type { Store } from '../store/store.ts';
import type { LambdaClients } from './clients.ts';
import { storeForLambda } from './dynamo-client.ts';
import { EventBridgeDispatcher } from './eventbridge-dispatcher.ts';
import { workflowEvents } from './workflow-events.ts';
import type { ENGINE_OPTIONAL_VARS, ENGINE_VARS, LambdaEnv } from './lambda-env.ts';
import type { LambdaFunction } from './deployment.ts';

export { failureNoticesForLambda, noLinkKey } from './lambda-notices.ts';
import { noLinkKey, notifierForLambda } from './lambda-notices.ts';
import { DEFAULT_WORKSPACE, PLATFORM_WORKSPACE } from '../workspaces/names.ts';
import { KEEP_DEFAULT_WORKSPACE_MS, platformOver, type Platform } from '../workspaces/platform-over.ts';

export type EngineEnv = LambdaEnv<(typeof ENGINE_VARS)[number], (typeof ENGINE_OPTIONAL_VARS)[number]>;

/**
 * What a function's handler wires into its engine beyond the store, the bus and the notify
 * channel: each part's module (and so its need, shared/config/needs.ts) is reached only by
 * the handlers that pass it, so the bindings check sees exactly what each function can do.
 * A part left out refuses with one line naming the function, should its code ever reach it.
 */
export interface EngineParts {
  /** The model provider (`modelFactory`, shared/models/provider.ts): functions that run agents. */
  models?: ModelFactory;
  /** Opens integration credentials (`kmsOnlyCredentials`, shared/credentials/open-credentials.ts). */
  credentials?: (store: Store, workspace: string) => Credentials;
  /** Signs or checks decision links (`linkKeyFor`, secret-link-key.ts): functions that pause runs or serve links. */
  linkKey?: LinkKey;
}

/**
 * The engine as Lambda function `fn` runs it (made once, at module scope): DynamoDB store,
 * each node dispatched through EventBridge, notices to SNS, decision links pointing at
 * UI_BASE_URL, and the parts its handler wires (models, credentials, the link key).
 */
export function engineForLambda(
  fn: LambdaFunction,
  env: EngineEnv,
  clients: LambdaClients,
  parts: EngineParts = {},
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
    models:
      parts.models ??
      noModels(
        `the ${fn} function makes no model calls (model work runs in the executor, resume and agent functions)`,
      ),
    notifier: notifierForLambda(env, clients),
    links: new DecisionLinks(parts.linkKey ?? noLinkKey(fn), () => settings.uiBaseUrl, workspace),
    credentials:
      parts.credentials?.(store, workspace) ??
      refusingCredentials(
        store,
        `the ${fn} function opens no credentials (it is not bound to the credentials key)`,
        workspace,
      ),
    // AgentCore Memory is not part of the stack (USE_AGENTCORE_MEMORY is a local option).
    mirror: noMirror,
    dispatcher: new EventBridgeDispatcher(clients.eventBridge, env.EVENT_BUS_NAME, workspace),
    emit: emitIn(workspace),
    // A workflow the assistant saves, pauses or deletes has its EventBridge schedule kept in step.
    onWorkflowChange: workflowEvents(clients.eventBridge, env.EVENT_BUS_NAME),
    settings,
  };
}

/** The engine of each workspace a function meets, made on first use and kept (per container). */
export type EngineOf = (workspace: string) => EngineDeps;

/** {@link engineForLambda} per workspace, each made once. */
export function lambdaEngines(
  fn: LambdaFunction,
  env: EngineEnv,
  clients: LambdaClients,
  parts: EngineParts = {},
): EngineOf {
  const engines = new Map<string, EngineDeps>();
  return (workspace) => {
    let engine = engines.get(workspace);
    if (!engine) {
      engine = engineForLambda(fn, env, clients, parts, workspace);
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

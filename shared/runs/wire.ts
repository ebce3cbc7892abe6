import type { Env } from '../config/env.ts';
import { emit } from '../events/feed.ts';
import { mirrorFromEnv } from '../memory/agentcore-mirror.ts';
import { modelFactory } from '../models/provider.ts';
import { ConsoleNotifier } from '../notify/notifier.ts';
import { openStore } from '../store/open-store.ts';
import type { EngineDeps } from './deps.ts';

export const DEFAULT_PAGE_SIZE = 10;

/** The engine as configured by the environment; hosts call this once. */
export function engineFromEnv(env: Env, overrides: Partial<EngineDeps> = {}): EngineDeps {
  return {
    store: openStore(env),
    models: modelFactory(env.HANDOFF_MODEL_PROVIDER),
    notifier: new ConsoleNotifier(),
    mirror: mirrorFromEnv(env),
    dispatcher: null,
    emit,
    settings: {
      confidenceThreshold: env.CONFIDENCE_THRESHOLD,
      decisionTtlHours: env.DECISION_TTL_HOURS,
      uiBaseUrl: env.UI_BASE_URL ?? `http://127.0.0.1:${env.PORT}`,
      pageSize: DEFAULT_PAGE_SIZE,
    },
    ...overrides,
  };
}

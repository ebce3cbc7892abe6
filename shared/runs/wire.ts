import type { Env } from '../config/env.ts';
import { emit } from '../events/feed.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import { FileLinkKey } from '../links/link-key.ts';
import { mirrorFor } from '../memory/mirror.ts';
import { modelFactory } from '../models/provider.ts';
import { notifierFromEnv } from '../notify/from-env.ts';
import { openStore } from '../store/open-store.ts';
import type { EngineDeps } from './deps.ts';

export const DEFAULT_PAGE_SIZE = 10;

/** The engine as configured by the environment; hosts call this once. */
export function engineFromEnv(env: Env, overrides: Partial<EngineDeps> = {}): EngineDeps {
  const settings: EngineDeps['settings'] = {
    confidenceThreshold: env.CONFIDENCE_THRESHOLD,
    decisionTtlHours: env.DECISION_TTL_HOURS,
    uiBaseUrl: env.UI_BASE_URL ?? `http://127.0.0.1:${env.PORT}`,
    pageSize: DEFAULT_PAGE_SIZE,
  };
  return {
    store: openStore(env),
    models: modelFactory(env),
    notifier: notifierFromEnv(env),
    links: new DecisionLinks(new FileLinkKey(env.HANDOFF_STATE_DIR), () => settings.uiBaseUrl),
    mirror: mirrorFor(env),
    dispatcher: null,
    emit,
    settings,
    ...overrides,
  };
}

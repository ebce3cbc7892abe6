import type { Env } from '../config/env.ts';
import { runningServerUrl } from '../config/server-address.ts';
import { credentialsFor } from '../credentials/open-credentials.ts';
import { emitIn } from '../events/feed.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import { FileLinkKey } from '../links/link-key.ts';
import { mirrorFor } from '../memory/open-mirror.ts';
import { modelFactory } from '../models/provider.ts';
import { settingsNotifier } from '../notify/settings-notifier.ts';
import { slackSource } from '../notify/slack-source.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { openStore } from '../store/open-store.ts';
import { DEFAULT_PAGE_SIZE, type EngineDeps } from './deps.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

export { DEFAULT_PAGE_SIZE } from './deps.ts';

/** The engine of one workspace (`overrides.workspace`, else `default`) as the environment configures it. */
export function engineFromEnv(env: Env, overrides: Partial<EngineDeps> = {}): EngineDeps {
  const settings: EngineDeps['settings'] = {
    confidenceThreshold: env.CONFIDENCE_THRESHOLD,
    decisionTtlHours: env.DECISION_TTL_HOURS,
    // A running local server's real address (its --port), else PORT's guess.
    uiBaseUrl: env.UI_BASE_URL ?? runningServerUrl(env.HANDOFF_STATE_DIR) ?? `http://127.0.0.1:${env.PORT}`,
    pageSize: DEFAULT_PAGE_SIZE,
  };
  const workspace = overrides.workspace ?? DEFAULT_WORKSPACE;
  const store = overrides.store ?? openStore(env, workspace);
  const credentials = overrides.credentials ?? credentialsFor(env, store, process.env, workspace);
  return {
    workspace,
    store,
    models: modelFactory(env),
    notifier: settingsNotifier(store, env, { slackSecrets: () => slackSource(credentials) }),
    // The Settings page may have stored another UI base URL: links follow it without a restart.
    links: new DecisionLinks(
      new FileLinkKey(env.HANDOFF_STATE_DIR),
      async () => (await readStoredSettings(store))?.ui_base_url ?? settings.uiBaseUrl,
      workspace,
    ),
    credentials,
    mirror: mirrorFor(env, workspace),
    dispatcher: null,
    emit: emitIn(workspace),
    settings,
    ...overrides,
  };
}

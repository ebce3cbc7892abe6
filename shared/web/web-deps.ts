import type { Env } from '../config/env.ts';
import type { LinkKey } from '../links/link-key.ts';
import type { EngineDeps } from '../runs/deps.ts';
import type { Settings, StoredSettings } from '../settings/settings.ts';
import type { RunLauncher } from './run-launcher.ts';
import type { Sessions } from './session.ts';
import type { Platform } from '../workspaces/platform.ts';
import type { Workspace } from '../workspaces/registry.ts';

/** What the pages are built from (made once in createApp; `engine` follows the request). */
export interface WebDeps {
  /** The engine of the request's workspace (outside a request: the app's own). */
  readonly engine: EngineDeps;
  /** The request's workspace; undefined outside a request. */
  readonly workspace: Workspace | undefined;
  /** Every workspace, when the app serves more than one. */
  platform: Platform | undefined;
  env: Env;
  runner: RunLauncher;
  linkKey: LinkKey;
  sessions: Sessions;
  /** A public deployment: without a password, only signed decision links open. */
  requireToken: boolean;
  /** Where links point when no UI base URL is stored (the environment's, else this server). */
  uiBaseUrlDefault: () => string;
  /** `sse`: runs execute in this process, so the inspector streams its feed; `poll`: it re-reads. */
  liveFeed: 'sse' | 'poll';
}

/** Makes this process use stored settings at once (the engine reads the threshold itself, per run). */
export function applySettings(web: WebDeps, stored: StoredSettings | null): void {
  web.engine.settings.uiBaseUrl = stored?.ui_base_url ?? web.uiBaseUrlDefault();
}

/** The defaults the Settings page shows under each stored value (environment, then server). */
export function settingDefaults(web: WebDeps): Settings {
  return {
    confidence_threshold: web.engine.settings.confidenceThreshold,
    notify_channel: web.env.NOTIFY_CHANNEL,
    ui_base_url: web.uiBaseUrlDefault(),
  };
}

/**
 * The platform around the workspaces: the registry of workspaces, the API keys, and an
 * engine for each workspace, all from one environment. Locally the state directory is
 * migrated first (once per process), so single-workspace state lands in `default`.
 */
import type { Env } from '../config/env.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { engineFromEnv } from '../runs/wire.ts';
import { openStore } from '../store/open-store.ts';
import { migrateStateDir } from './migrate-state-dir.ts';
import { PLATFORM_WORKSPACE } from './names.ts';
import { platformOver, type Platform } from './platform-over.ts';

export { KEEP_DEFAULT_WORKSPACE_MS, platformOver, type Platform } from './platform-over.ts';

const migrated = new Map<string, Promise<number>>();

/** Migrates a pre-workspace state directory once per process (a no-op on DynamoDB). */
export function prepareState(env: Env): Promise<number> {
  if (env.USE_DYNAMODB) return Promise.resolve(0);
  let done = migrated.get(env.HANDOFF_STATE_DIR);
  if (!done) {
    done = migrateStateDir(env.HANDOFF_STATE_DIR);
    migrated.set(env.HANDOFF_STATE_DIR, done);
  }
  return done;
}

/**
 * The platform of this environment. `makeEngine` builds a workspace's engine (default:
 * `engineFromEnv`); `base`, when given, is the default workspace's engine, reused. The
 * state directory is migrated first where needed.
 */
export async function openPlatform(
  env: Env,
  opts: { makeEngine?: (workspaceId: string) => EngineDeps; base?: EngineDeps } = {},
): Promise<Platform> {
  await prepareState(env);
  const makeEngine = opts.makeEngine ?? ((workspace) => engineFromEnv(env, { workspace }));
  return platformOver(openStore(env, PLATFORM_WORKSPACE), makeEngine, opts.base);
}

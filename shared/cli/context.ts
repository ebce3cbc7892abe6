import { loadEnv, type Env } from '../config/env.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { housekeeping } from '../runs/housekeeping.ts';
import { openPlatform, type Platform } from '../workspaces/platform.ts';
import type { Workspace } from '../workspaces/registry.ts';

/** What a CLI command is handed: the environment, the platform, and the engine of its workspace. */
export interface CliContext {
  env: Env;
  platform: Platform;
  /** The workspace `--workspace` / HANDOFF_WORKSPACE names (else `default`). */
  workspace: Workspace;
  engine: EngineDeps;
}

let context: CliContext | undefined;

/**
 * The CLI's context, made once per process: the state directory migrated where needed, the
 * workspace resolved (an unknown name is one line), housekeeping run (crash recovery, expiry).
 */
export async function cliContext(): Promise<CliContext> {
  if (!context) {
    const env = loadEnv();
    const platform = await openPlatform(env);
    const workspace = await platform.resolve(env.HANDOFF_WORKSPACE);
    const engine = platform.engineFor(workspace.id);
    await housekeeping(engine);
    context = { env, platform, workspace, engine };
  }
  return context;
}

import { loadEnv, type Env } from '../config/env.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { housekeeping } from '../runs/housekeeping.ts';
import { engineFromEnv } from '../runs/wire.ts';

/** What a CLI command is handed: the environment and the engine, made once per process. */
export interface CliContext {
  env: Env;
  engine: EngineDeps;
}

let context: CliContext | undefined;

/** The CLI's context; the first call also runs housekeeping (crash recovery, expiry). */
export async function cliContext(): Promise<CliContext> {
  if (!context) {
    const env = loadEnv();
    context = { env, engine: engineFromEnv(env) };
    await housekeeping(context.engine);
  }
  return context;
}

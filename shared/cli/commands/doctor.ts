import type { Command } from 'commander';
import { loadEnv, type Env } from '../../config/env.ts';
import { DEFAULT_WORKSPACE } from '../../workspaces/names.ts';
import { openPlatform, prepareState } from '../../workspaces/platform.ts';
import { describeResults, exitCodeFor, type CheckResult } from '../../doctor/check.ts';
import { doctorFromEnv, runDoctor } from '../../doctor/doctor.ts';
import { printJson } from '../output.ts';

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('one real call to each configured service: store, model, integrations, notifications')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      // Not cliContext(): the doctor must run, and say why, even when the store is broken.
      const env = loadEnv();
      const results = await runDoctor(env, await doctorFromEnv(env, process.env, await workspaceOf(env)));
      process.exitCode = printDoctor(results, options);
    });
}

/**
 * The id of the workspace to check: the one named (an unknown name is one line, exit 1), else
 * `default`, read without touching the platform's records (they may be what is broken).
 */
async function workspaceOf(env: Env): Promise<string> {
  await prepareState(env).catch(() => 0); // a state directory that cannot move is the store check's to report
  if (env.HANDOFF_WORKSPACE === undefined) return DEFAULT_WORKSPACE;
  return (await (await openPlatform(env)).resolve(env.HANDOFF_WORKSPACE)).id;
}

/** Prints one line per check (or the JSON list) and returns the exit code. */
export function printDoctor(results: readonly CheckResult[], options: { json?: boolean }): number {
  if (options.json) printJson(results);
  else for (const line of describeResults(results)) process.stdout.write(`${line}\n`);
  return exitCodeFor(results);
}

import type { Command } from 'commander';
import { loadEnv } from '../../config/env.ts';
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
      const results = await runDoctor(env, await doctorFromEnv(env));
      process.exitCode = printDoctor(results, options);
    });
}

/** Prints one line per check (or the JSON list) and returns the exit code. */
export function printDoctor(results: readonly CheckResult[], options: { json?: boolean }): number {
  if (options.json) printJson(results);
  else for (const line of describeResults(results)) process.stdout.write(`${line}\n`);
  return exitCodeFor(results);
}

import { Command, CommanderError } from 'commander';
import {
  HandoffError,
  InvalidInputError,
  NotFoundError,
  AlreadyDecidedError,
  errorMessage,
  isError,
} from '../errors/index.ts';
import { registerChatCommands } from './commands/chat.ts';
import { registerDecisionCommands } from './commands/decisions.ts';
import { registerDoctorCommand } from './commands/doctor.ts';
import { registerInspectCommand } from './commands/inspect.ts';
import { registerUsageCommand } from './commands/usage.ts';
import { registerIntegrationCommands } from './commands/integrations.ts';
import { registerRuleCommands } from './commands/rules.ts';
import { registerRunCommands } from './commands/runs.ts';
import { registerServerCommands } from './commands/server.ts';
import { registerSourceCommands } from './commands/sources.ts';
import { registerStoreCommands } from './commands/store.ts';
import { registerWorkflowCommands } from './commands/workflows.ts';
import { EXIT } from './output.ts';

/** The `handoff` command line. */
export function buildProgram(): Command {
  const program = new Command('handoff')
    .description('Background agent workflows that ask before they act.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .enablePositionalOptions();
  registerWorkflowCommands(program);
  registerSourceCommands(program);
  registerRunCommands(program);
  registerDecisionCommands(program);
  registerRuleCommands(program);
  registerStoreCommands(program);
  registerIntegrationCommands(program);
  registerServerCommands(program);
  registerInspectCommand(program);
  registerUsageCommand(program);
  registerDoctorCommand(program);
  registerChatCommands(program);
  return program;
}

/** Runs the CLI: one line on stderr and a non-zero exit for anything that went wrong. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const known =
      error instanceof InvalidInputError ||
      error instanceof NotFoundError ||
      error instanceof AlreadyDecidedError;
    const message = errorMessage(error);
    process.stderr.write(
      `handoff: ${known || error instanceof HandoffError ? message : `unexpected error: ${message}`}\n`,
    );
    if (!known && process.env.HANDOFF_DEBUG && isError(error)) process.stderr.write(`${error.stack}\n`);
    return EXIT.failed;
  }
}

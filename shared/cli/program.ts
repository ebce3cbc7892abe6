import { Command, CommanderError } from 'commander';
import {
  HandoffError,
  InvalidCursorError,
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
import { registerMcpCommand } from './commands/mcp.ts';
import { registerUsageCommand } from './commands/usage.ts';
import { registerIntegrationCommands } from './commands/integrations.ts';
import { registerRuleCommands } from './commands/rules.ts';
import { registerRunCommands } from './commands/runs.ts';
import { registerServerCommands } from './commands/server.ts';
import { registerSourceCommands } from './commands/sources.ts';
import { registerStoreCommands } from './commands/store.ts';
import { registerWorkflowCommands } from './commands/workflows.ts';
import { registerKeyCommands } from './commands/keys.ts';
import { registerWorkspaceCommands } from './commands/workspaces.ts';
import { EXIT } from './output.ts';
import { handoffVersion } from './version.ts';
import { registerArtifactCommands } from './commands/artifacts.ts';
import { registerScheduleCommands } from './commands/schedules.ts';
import { registerSkillCommands } from './commands/skills.ts';
import { registerAgentCommands } from './commands/agents.ts';
import { registerProfileCommands } from './commands/profile.ts';
import { registerWorkspaceFileCommands } from './commands/workspace-file.ts';
import { registerDemoCommand } from './commands/demo.ts';

/** The `handoff` command line. */
export function buildProgram(): Command {
  const program = new Command('handoff')
    .description('Background agent workflows that ask before they act.')
    .version(handoffVersion(), '--version', 'print the installed version')
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
  registerMcpCommand(program);
  registerWorkspaceCommands(program);
  registerKeyCommands(program);
  registerArtifactCommands(program);
  registerScheduleCommands(program);
  registerSkillCommands(program);
  registerAgentCommands(program);
  registerProfileCommands(program);
  registerWorkspaceFileCommands(program);
  registerChatCommands(program);
  registerDemoCommand(program);
  addWorkspaceOption(program);
  return program;
}

/**
 * Every command takes `--workspace NAME` (before or after its own arguments); it stands for
 * HANDOFF_WORKSPACE, so the one context every command reads works in that workspace.
 */
function addWorkspaceOption(program: Command): void {
  const describe = 'the workspace to work in (default: HANDOFF_WORKSPACE, else "default")';
  program.option('--workspace <name>', describe);
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  for (const command of program.commands.flatMap(all))
    if (!command.options.some((o) => o.long === '--workspace'))
      command.option('--workspace <name>', describe);
  program.hook('preAction', (_program, action) => {
    const chosen = (action.opts().workspace ?? program.opts().workspace) as string | undefined;
    if (chosen !== undefined) process.env.HANDOFF_WORKSPACE = chosen;
  });
}

/** Runs the CLI: one line on stderr and a non-zero exit for anything that went wrong. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof InvalidCursorError) {
      process.stderr.write(`handoff: ${error.message}\n`);
      return EXIT.usage; // as any other bad flag
    }
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

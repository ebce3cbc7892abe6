import type { Command } from 'commander';
import {
  applyWorkspace,
  describeChanges,
  MAX_WORKSPACE_BYTES,
  WorkspaceFileError,
} from '../../workspace/apply.ts';
import { exportWorkspace, toYaml } from '../../workspace/file.ts';
import { cliContext } from '../context.ts';
import { EXIT, printJson } from '../output.ts';
import { readFileOrStdin } from './library-input.ts';

/** `handoff workspace export` and `handoff workspace apply FILE [--dry-run]`. */
export function registerWorkspaceFileCommands(program: Command): void {
  const cmd = program
    .command('workspace')
    .description('the workspace in one file: export it to workspace.yml, or apply one');

  cmd
    .command('export')
    .description('print the workspace as YAML (no secrets): handoff workspace export > workspace.yml')
    .option('--with-learned-rules', 'include the rules learned from your answers, not only those you set')
    .action(async (options: { withLearnedRules?: boolean }) => {
      const { engine } = await cliContext();
      const file = await exportWorkspace(engine.store, {
        withLearnedRules: options.withLearnedRules ?? false,
      });
      process.stdout.write(toYaml(file));
    });

  cmd
    .command('apply FILE')
    .description('check a workspace file and apply it (all or nothing); --dry-run prints the changes only')
    .option('--dry-run', 'print what would change, change nothing')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { dryRun?: boolean; json?: boolean }) => {
      const { text } = await readFileOrStdin(
        file === '-' ? undefined : file,
        'workspace file',
        MAX_WORKSPACE_BYTES,
      );
      const { engine } = await cliContext();
      try {
        const result = await applyWorkspace(engine.store, text, file, { dryRun: options.dryRun ?? false });
        if (options.json) return printJson({ applied: result.applied, changes: result.changes });
        for (const line of describeChanges(result.changes)) console.log(line);
        if (options.dryRun && result.changes.length > 0) console.log('(dry run: nothing was changed)');
      } catch (error) {
        if (!(error instanceof WorkspaceFileError)) throw error;
        for (const line of error.problems) process.stderr.write(`handoff: ${line}\n`);
        process.stderr.write(
          `handoff: nothing was applied (${error.problems.length} problem${error.problems.length > 1 ? 's' : ''})\n`,
        );
        process.exitCode = EXIT.failed;
      }
    });
}

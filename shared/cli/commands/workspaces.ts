import type { Command } from 'commander';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

/** Registers `handoff workspaces` (list, add, rename, delete). */
export function registerWorkspaceCommands(program: Command): void {
  const workspaces = program
    .command('workspaces')
    .description('list workspaces, or add, rename and delete them')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { platform } = await cliContext();
      const all = await platform.registry.list();
      const rows = await Promise.all(
        all.map(async (w) => ({
          id: w.id,
          name: w.name,
          created_at: w.created_at,
          workflows: (await platform.engineFor(w.id).store.list('workflows')).length,
          pending: (await platform.engineFor(w.id).store.listWithStatus('decisions', 'pending')).length,
        })),
      );
      if (options.json) return printJson(rows);
      printTable(
        ['name', 'workflows', 'pending', 'created'],
        rows.map((w) => [w.name, w.workflows, w.pending, w.created_at]),
      );
    });

  workspaces
    .command('add <name>')
    .description('add a workspace')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const added = await (await cliContext()).platform.registry.add(name);
      if (options.json) printJson(added);
      else process.stdout.write(`Added workspace ${added.name}\n`);
    });

  workspaces
    .command('rename <old> <new>')
    .description('rename a workspace (its records stay where they are)')
    .option('--json', 'print JSON')
    .action(async (from: string, to: string, options: { json?: boolean }) => {
      const renamed = await (await cliContext()).platform.registry.rename(from, to);
      if (options.json) printJson(renamed);
      else process.stdout.write(`Renamed workspace ${from} to ${renamed.name}\n`);
    });

  workspaces
    .command('delete <name>')
    .alias('remove')
    .description('delete a workspace that holds no workflows, runs, rules or credentials')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { platform } = await cliContext();
      const workspace = await platform.registry.resolve(name);
      await platform.registry.remove(name, platform.engineFor(workspace.id).store);
      if (options.json) printJson({ deleted: workspace.name, id: workspace.id });
      else process.stdout.write(`Deleted workspace ${workspace.name}\n`);
    });
}

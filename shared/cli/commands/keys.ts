import type { Command } from 'commander';
import { addApiKey, listApiKeys, revokeApiKey } from '../../workspaces/api-keys.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

/** Registers `handoff keys` (list, add, revoke): API keys, each scoped to one workspace or all. */
export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('list API keys (never their values), or add and revoke them')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { platform } = await cliContext();
      const names = new Map((await platform.registry.list()).map((w) => [w.id, w.name]));
      const all = (await listApiKeys(platform.store)).map((k) => ({
        ...k,
        workspace: k.workspace === null ? null : (names.get(k.workspace) ?? k.workspace),
      }));
      if (options.json) return printJson(all);
      printTable(
        ['id', 'workspace', 'created', 'revoked'],
        all.map((k) => [k.id, k.workspace ?? '(all)', k.created_at, k.revoked_at]),
      );
    });

  keys
    .command('add')
    .description('make an API key for the workspace (--workspace), or every workspace (--all); printed once')
    .option('--all', 'a key for every workspace')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { platform, workspace } = await cliContext();
      const { key, record } = await addApiKey(platform.store, options.all ? null : workspace.id);
      const scope = options.all ? null : workspace.name;
      if (options.json) return printJson({ ...record, workspace: scope, key });
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `API key ${record.id} for ${scope ? `workspace ${scope}` : 'every workspace'}: shown once, keep it now.\n`,
      );
    });

  keys
    .command('revoke <id>')
    .description('revoke an API key')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await revokeApiKey((await cliContext()).platform.store, id);
      if (options.json) printJson(revoked);
      else process.stdout.write(`Revoked API key ${revoked.id}\n`);
    });
}

import type { Command } from 'commander';
import { loadEnv } from '../../config/env.ts';
import { initStore, migrateStore } from '../../store/open-store.ts';
import { printJson } from '../output.ts';

export function registerStoreCommands(program: Command): void {
  const store = program
    .command('store')
    .description('the state store (JSON files, or DynamoDB with USE_DYNAMODB=true)');
  store
    .command('init')
    .description('create the state directory, or the DynamoDB table if it is missing')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const done = await initStore(loadEnv());
      if (options.json) return printJson({ store: done });
      console.log(done);
    });
  store
    .command('migrate')
    .description("move a DynamoDB table written before workspaces into workspace 'default' (safe to re-run)")
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const report = await migrateStore(loadEnv());
      if (options.json)
        return printJson(
          report
            ? { store: 'dynamodb', ...report }
            : { store: 'json', found: 0, moved: 0, already_moved: 0, skipped: 0 },
        );
      if (!report)
        return console.log('Nothing to migrate: the JSON file store has no table (USE_DYNAMODB is not set).');
      console.log(
        report.found === 0
          ? `Nothing to migrate: table ${report.table} is already in the workspace layout.`
          : `Migrated table ${report.table} into workspace ${report.workspace}: ${report.moved} moved, ${report.already_moved} already moved, ${report.skipped} skipped (unknown collection).`,
      );
    });
}

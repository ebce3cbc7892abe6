import type { Command } from 'commander';
import { loadEnv } from '../../config/env.ts';
import { migrateKeys, type KeyMigrationReport } from '../../runs/key-migration.ts';
import { initStore, migrateStore } from '../../store/open-store.ts';
import { openPlatform } from '../../workspaces/platform.ts';
import { printJson } from '../output.ts';
import { plural } from '../../text/plural.ts';

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
    .description(
      "move a DynamoDB table written before workspaces into workspace 'default', then give every workspace's history ids that carry their run's key (safe to re-run, resumable)",
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const env = loadEnv();
      const report = await migrateStore(env);
      const keys = await migrateEveryWorkspace(env);
      if (options.json)
        return printJson({
          ...(report
            ? { store: 'dynamodb', ...report }
            : { store: 'json', found: 0, moved: 0, already_moved: 0, skipped: 0 }),
          keys,
        });
      if (!report)
        console.log('Nothing to migrate: the JSON file store has no table (USE_DYNAMODB is not set).');
      else
        console.log(
          report.found === 0
            ? `Nothing to migrate: table ${report.table} is already in the workspace layout.`
            : `Migrated table ${report.table} into workspace ${report.workspace}: ${report.moved} moved, ${report.already_moved} already moved, ${report.skipped} skipped (unknown collection).`,
        );
      for (const k of keys.filter((k) => !k.already_done))
        console.log(
          `Workspace ${k.workspace}: ${plural(k.runs, 'run')} keyed, ${k.audit_moved} audit entries moved, ${plural(k.legacy_decisions, 'older question')} noted on their runs, ${plural(k.reindexed, 'record')} indexed by time, ${plural(k.rule_keys, 'rule key')} written, ${plural(k.run_totals, 'finished run')} summed into the totals, ${plural(k.artifacts_indexed, 'artifact')} and ${plural(k.chats_indexed, 'chat')} indexed by time, ${plural(k.proposals_keyed, 'proposal')} keyed, ${plural(k.usage_rolled_up, 'usage record')} rolled up by day.`,
        );
    });
}

/** The keys step (runs/key-migration.ts) in every workspace, one after another. */
async function migrateEveryWorkspace(
  env: ReturnType<typeof loadEnv>,
): Promise<(KeyMigrationReport & { workspace: string })[]> {
  const platform = await openPlatform(env);
  const reports = [];
  for (const workspace of await platform.registry.list())
    reports.push({ workspace: workspace.id, ...(await migrateKeys(platform.engineFor(workspace.id).store)) });
  return reports;
}

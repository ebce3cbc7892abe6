import type { Command } from 'commander';
import { loadEnv } from '../../config/env.ts';
import { initStore } from '../../store/open-store.ts';
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
}

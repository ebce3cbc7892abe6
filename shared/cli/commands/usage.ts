import type { Command } from 'commander';
import { costText, UNKNOWN_COST_NOTE, usageByWorkflowDay } from '../../recorder/views.ts';
import type { Store } from '../../store/store.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

export function registerUsageCommand(program: Command): void {
  program
    .command('usage')
    .description('model tokens and cost per workflow and day')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      await printUsage(engine.store, options);
    });
}

/** Prints tokens and cost per workflow and day, oldest day first. */
export async function printUsage(store: Store, options: { json?: boolean }): Promise<void> {
  const rows = await usageByWorkflowDay(store);
  if (options.json) return printJson(rows);
  if (rows.length === 0) return void process.stdout.write('No model calls recorded yet.\n');
  printTable(
    ['day', 'workflow', 'calls', 'tokens in', 'tokens out', 'cost (USD)'],
    rows.map((r) => [
      r.day,
      r.workflow_id,
      r.calls,
      r.input_tokens,
      r.output_tokens,
      costText(r.known_cost_usd, r.unknown_cost_calls, (usd) => usd.toFixed(6)),
    ]),
  );
  if (rows.some((r) => r.unknown_cost_calls > 0)) process.stdout.write(`${UNKNOWN_COST_NOTE}\n`);
}

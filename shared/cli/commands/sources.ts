import type { Command } from 'commander';
import { HandoffError, InvalidInputError, errorMessage } from '../../errors/index.ts';
import { checkSource, DEFAULT_CHECK_LIMIT, type SourceCheck } from '../../sources/check.ts';
import { getWorkflow } from '../../workflows/repository.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { plural } from '../../text/plural.ts';

/** `handoff sources check WORKFLOW`: what the workflow's source holds now, acting on nothing. */
export function registerSourceCommands(program: Command): void {
  const sources = program.command('sources').description("look at workflows' sources without acting");
  sources
    .command('check WORKFLOW')
    .description('connect to the source, count its items and show the first few (acts on nothing)')
    .option('--json', 'print JSON')
    .option('--limit <N>', `how many items to show (default ${DEFAULT_CHECK_LIMIT})`)
    .action(async (workflowId: string, options: { json?: boolean; limit?: string }) => {
      let check: SourceCheck;
      try {
        const limit = options.limit === undefined ? undefined : parseLimit(options.limit);
        const { engine } = await cliContext();
        const workflow = await getWorkflow(engine.store, workflowId);
        check = await checkSource(workflow, {
          credentials: engine.credentials,
          ...(limit === undefined ? {} : { limit }),
        });
      } catch (error) {
        if (options.json) printJson({ ok: false, error: errorMessage(error) });
        throw error;
      }
      if (options.json) printJson(check);
      if (!check.ok) throw new HandoffError(`source of ${workflowId} (${sourceType(check)}): ${check.error}`);
      if (!options.json) printCheck(check);
    });
}

function printCheck(check: Extract<SourceCheck, { ok: true }>): void {
  console.log(`Source of ${check.workflow_id} (${sourceType(check)}): ${plural(check.count, 'item')}`);
  if (check.note) console.log(check.note);
  if (check.items.length === 0) return;
  printTable(
    ['id', 'sender', 'subject', 'date'],
    check.items.map((i) => [i.id, i.sender, i.subject, i.date]),
  );
  if (check.count > check.items.length) console.log(`… and ${check.count - check.items.length} more`);
  console.log('Nothing was acted on.');
}

function sourceType(check: SourceCheck): string {
  return String(check.source.type);
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100)
    throw new InvalidInputError(`--limit ${value} is not a number of items (1-100)`);
  return Number(value);
}

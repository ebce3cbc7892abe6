import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { RunStatusSchema, type RunStatus } from '../../records/runs.ts';
import { auditPage, runsPage } from '../../runs/list-pages.ts';
import { readStats } from '../../runs/read-stats.ts';
import { describeOutcome } from '../../runs/counts.ts';
import { summarise } from '../../runs/views.ts';
import { auditRowJson, runRowJson } from '../../runs/list-json.ts';
import { cliContext } from '../context.ts';
import { flags, printNextPage, withPaging } from '../paging.ts';
import { exitCodeForRun, printJson, printTable, progressBar } from '../output.ts';

export function registerRunCommands(program: Command): void {
  program
    .command('run WORKFLOW_ID')
    .description('run a workflow now; unsure items are asked about at the end')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const { createRunFor, executeRun } = await import('../../runs/start-run.ts');
      const run = await createRunFor(engine, workflowId, { kind: 'manual', detail: null });
      const bar = progressBar(`Running ${workflowId}`);
      let handled = 0;
      const emit = engine.emit;
      const finished = await executeRun(
        {
          ...engine,
          emit: (channel, kind, text, data) => {
            if (kind === 'acted' || kind === 'deferred') bar.update(++handled);
            emit(channel, kind, text, data);
          },
        },
        run,
      );
      bar.end();
      process.exitCode = exitCodeForRun(finished.status); // the format never changes the exit code
      if (options.json) return printJson(summarise(finished));
      console.log(`Run ${finished.id}: ${finished.status} — ${describeOutcome(finished)}`);
      if (finished.status === 'waiting')
        console.log('Answer the questions: handoff pending, then handoff decide ID ACTION');
      if (finished.error) console.log(`Reason: ${finished.error}`);
    });

  withPaging(
    program
      .command('runs')
      .description('list runs, newest first')
      .option('--workflow <WORKFLOW_ID>', "only this workflow's runs")
      .option(
        '--status <STATUS>',
        `only runs in this state (${RunStatusSchema.options.join(', ')})`,
        runStatus,
      ),
  )
    .option('--json', 'print JSON')
    .action(
      async (options: {
        workflow?: string;
        status?: RunStatus;
        json?: boolean;
        limit: number;
        cursor?: string;
      }) => {
        const { engine } = await cliContext();
        const page = await runsPage(engine.store, options);
        const rows = page.items.map(runRowJson);
        printNextPage(`handoff runs${flags(options)}`, page.next_cursor);
        if (options.json) return printJson(rows);
        if (rows.length === 0) return console.log('No runs yet. Start one: handoff run WORKFLOW_ID');
        printTable(
          ['run', 'workflow', 'status', 'started', 'finished'],
          rows.map((r) => [r.run_id, r.workflow_id, r.status, r.started_at, r.finished_at]),
        );
      },
    );

  withPaging(
    program
      .command('audit')
      .description('the audit log: one entry per item outcome, plus run start and finish')
      .option('--run <RUN_ID>', 'only this run'),
  )
    .option('--json', 'print JSON')
    .action(async (options: { run?: string; json?: boolean; limit: number; cursor?: string }) => {
      const { engine } = await cliContext();
      // An unknown run is NotFoundError: exit 1, as `inspect` does.
      const page = await auditPage(engine.store, options);
      const entries = page.items;
      printNextPage(`handoff audit${flags(options)}`, page.next_cursor);
      if (options.json) return printJson(entries.map(auditRowJson));
      if (entries.length === 0) return console.log('The audit log is empty.');
      printTable(
        ['at', 'run', 'outcome', 'action', 'by', 'item / detail'],
        entries.map((e) => [e.at, e.run_id, e.outcome, e.action, e.decided_by, e.item_id ?? e.detail]),
        40,
      );
    });

  program
    .command('stats')
    .description('what was acted on (confident, by rules, by you), asked and left alone')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const stats = await readStats(engine.store);
      if (options.json) return printJson(stats);
      printTable(
        ['', 'acted', 'confident', 'by rules', 'by you', 'asked', 'left alone', 'failed'],
        (['today', 'this_week', 'overall'] as const).map((k) => {
          const c = stats.counts[k];
          return [
            k.replace('_', ' '),
            c.acted,
            c.confident,
            c.by_rules,
            c.by_you,
            c.asked,
            c.left_alone,
            c.failed,
          ];
        }),
      );
    });
}

function runStatus(value: string): RunStatus {
  const status = RunStatusSchema.safeParse(value);
  if (!status.success) throw new InvalidArgumentError(`give one of ${RunStatusSchema.options.join(', ')}`);
  return status.data;
}

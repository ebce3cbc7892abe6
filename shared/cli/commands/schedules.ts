import type { Command } from 'commander';
import { listSchedules, setPaused, type ScheduleView } from '../../schedules/schedules.ts';
import { cliContext } from '../context.ts';
import { printJson, printTable } from '../output.ts';

function printView(view: ScheduleView, json: boolean | undefined): void {
  if (json) return printJson(view);
  console.log(
    view.paused
      ? `Paused ${view.workflow_id} (${view.schedule}): it does not fire until \`handoff schedules resume ${view.workflow_id}\`.`
      : `Resumed ${view.workflow_id} (${view.schedule}); next: ${view.next.map((f) => f.local).join(', ') || '—'}.`,
  );
}

/** `handoff schedules [--json]`, `handoff schedules pause WORKFLOW`, `handoff schedules resume WORKFLOW`. */
export function registerScheduleCommands(program: Command): void {
  const schedules = program
    .command('schedules')
    .description("scheduled workflows and their next firings in the profile's time zone; pause or resume one")
    .enablePositionalOptions()
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const list = await listSchedules(engine.store);
      if (options.json) return printJson(list);
      if (list.length === 0)
        return void console.log(
          'No workflow runs on a schedule (trigger: { schedule: "cron(0 8 ? * MON-FRI *)" }).',
        );
      printTable(
        ['workflow', 'schedule', 'state', 'next firings'],
        list.map((s) => [
          s.workflow_id,
          s.schedule,
          s.paused ? (s.needs ? `paused (needs ${s.needs.join(', ')})` : 'paused') : 'active',
          s.next.map((f) => f.local).join(', '),
        ]),
        120,
      );
    });

  for (const op of ['pause', 'resume'] as const)
    schedules
      .command(op)
      .description(
        op === 'pause'
          ? 'stop a workflow firing on its schedule (the workflow is not edited)'
          : 'let a paused schedule fire again',
      )
      .argument('<WORKFLOW>', 'the workflow id (see `handoff schedules`)')
      .option('--json', 'print JSON')
      .action(async (workflowId: string, options: { json?: boolean }) => {
        const { engine } = await cliContext();
        printView(
          await setPaused(engine.store, workflowId, op === 'pause', new Date(), engine.credentials),
          options.json,
        );
      });
}

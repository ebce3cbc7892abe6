import type { Command } from 'commander';
import { getDecision, listPending } from '../../runs/decision-repository.ts';
import { describeAnswer, toPendingJson } from '../../runs/views.ts';
import { cliContext } from '../context.ts';
import { exitCodeForRun, printJson, printTable } from '../output.ts';

export function registerDecisionCommands(program: Command): void {
  program
    .command('pending')
    .description('the questions waiting for you, across runs')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { engine } = await cliContext();
      const pending = await listPending(engine.store);
      if (options.json) return printJson(pending.map(toPendingJson));
      if (pending.length === 0) return console.log('Nothing is waiting for you.');
      printTable(
        ['decision', 'from', 'subject', 'suggested', 'conf'],
        pending.map((d) => [d.id, d.sender, d.subject, d.suggested_action, d.confidence.toFixed(2)]),
        40,
      );
      for (const d of pending)
        console.log(
          `\n${d.id}: ${d.reasoning}\n  options: ${[...d.options, 'approve_suggested'].join(', ')}`,
        );
      console.log(`\nAnswer one: handoff decide DECISION_ID ACTION --note "why"`);
    });

  program
    .command('decide DECISION_ID ACTION')
    .description('answer one question; the run resumes when all of its questions are answered')
    .option('--note <TEXT>', 'why: the strongest signal for what Handoff learns')
    .option('--json', 'print JSON')
    .action(async (decisionId: string, action: string, options: { note?: string; json?: boolean }) => {
      const { engine } = await cliContext();
      const { decide } = await import('../../runs/decide.ts');
      const result = await decide(engine, decisionId, action, options.note ?? null);
      process.exitCode = exitCodeForRun(result.run_status); // the answer stands; a resumed run may fail
      if (options.json) return printJson(result);
      const answered = await getDecision(engine.store, decisionId);
      console.log(
        `Recorded for ${decisionId}: ${describeAnswer(answered)}. Run ${result.run_id} is ${result.run_status}.`,
      );
    });
}

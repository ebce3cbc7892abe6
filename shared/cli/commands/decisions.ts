import type { Command } from 'commander';
import type { Decision } from '../../records/runs.ts';
import {
  answerEachAsStored,
  suggestedAnswers,
  type AnswerInput,
  type AnswerResult,
} from '../../runs/answer-many.ts';
import { listPending } from '../../runs/decision-repository.ts';
import { describeAnswer, toPendingJson } from '../../runs/views.ts';
import { cliContext } from '../context.ts';
import { EXIT, exitCodeForRun, printJson, printTable } from '../output.ts';

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
    .command('decide [ARGS...]')
    .usage(
      'ID [ID ...] ACTION [--note TEXT] [--once] | --all-suggested [--run RUN] [--workflow ID] [--from ADDRESS_OR_DOMAIN]',
    )
    .description(
      'answer questions: each ID with ACTION (the last word), or each waiting one with its own suggestion; a run resumes when all of its questions are answered',
    )
    .option('--note <TEXT>', 'why: the strongest signal for what Handoff learns')
    .option('--once', 'just this once: the answer teaches nothing and cancels nothing')
    .option('--all-suggested', 'answer each matching waiting question with its own suggestion')
    .option('--run <RUN>', "with --all-suggested: only this run's questions")
    .option('--workflow <ID>', "with --all-suggested: only this workflow's questions")
    .option('--from <ADDRESS_OR_DOMAIN>', 'with --all-suggested: only mail from this address or domain')
    .option('--json', 'print JSON: one result per answer')
    .action(async (args: string[], options: DecideOptions, command: Command) => {
      const answers = await answersFrom(args, options, command);
      if (answers === null) return;
      const { engine } = await cliContext();
      const results = await answerEachAsStored(engine, answers.list);
      reportAnswers(results, answers.leftForYou, options.json === true);
    });
}

interface DecideOptions {
  note?: string;
  once?: boolean;
  allSuggested?: boolean;
  run?: string;
  workflow?: string;
  from?: string;
  json?: boolean;
}

/** The answers the command line asks for (null: nothing to answer, already said). */
async function answersFrom(
  args: string[],
  options: DecideOptions,
  command: Command,
): Promise<{ list: AnswerInput[]; leftForYou: Decision[] } | null> {
  if (options.allSuggested) {
    if (args.length > 0)
      command.error('error: --all-suggested answers with each suggestion: give no ids or action');
    const { engine } = await cliContext();
    const picked = await suggestedAnswers(engine, options);
    if (picked.answers.length === 0 && picked.leftForYou.length === 0) {
      if (options.json) printJson([]);
      else console.log('Nothing is waiting for you there.');
      return null;
    }
    // --note and --once go with every answer (accepting a backlog "just this once" teaches nothing).
    const list = picked.answers.map((a) => ({
      ...a,
      note: options.note ?? null,
      once: options.once === true,
    }));
    return { list, leftForYou: picked.leftForYou };
  }
  if (options.run !== undefined || options.workflow !== undefined || options.from !== undefined)
    command.error('error: --run, --workflow and --from go with --all-suggested');
  if (args.length < 2) command.error('error: give one or more decision ids, then the action');
  const action = args.at(-1)!;
  const ids = [...new Set(args.slice(0, -1))];
  const note = options.note ?? null;
  return { list: ids.map((id) => ({ id, action, note, once: options.once === true })), leftForYou: [] };
}

/** One line per answer (or the JSON array); exit 0 only when every answer was taken and no run it resumed failed. */
function reportAnswers(
  answered: { result: AnswerResult; answered: Decision | null }[],
  leftForYou: Decision[],
  json: boolean,
): void {
  const results = answered.map((a) => a.result);
  const refused = results.filter((r) => !r.ok);
  const failedRun = results.some((r) => r.ok && exitCodeForRun(r.run_status ?? '') !== EXIT.ok);
  process.exitCode = refused.length > 0 || failedRun ? EXIT.failed : EXIT.ok;
  if (json) printJson(results);
  else
    for (const { result: r, answered: d } of answered)
      if (r.ok && d)
        console.log(
          `Recorded for ${r.id}: ${describeAnswer(d)}. ${r.learned}${
            r.learned_rule ? ` (undo: handoff rules delete ${r.learned_rule.id})` : ''
          }. Run ${r.run_id} is ${r.run_status}.`,
        );
  // What was refused goes to stderr, one line each (the command's failure, as everywhere).
  for (const r of refused) process.stderr.write(`handoff: ${r.id}: ${r.error}\n`);
  if (leftForYou.length > 0 && !json)
    console.log(
      `Left for you: ${leftForYou.length} irreversible suggestion${leftForYou.length === 1 ? '' : 's'} (${leftForYou
        .map((d) => `${d.id} ${d.suggested_action}`)
        .join(', ')}): answer each with handoff decide ID ACTION`,
    );
}

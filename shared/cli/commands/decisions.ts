import { decisionsPage } from '../../runs/list-pages.ts';
import { flags, printNextPage, withPaging } from '../paging.ts';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Decision } from '../../records/runs.ts';
import {
  answerEachAsStored,
  suggestedAnswers,
  type AnswerInput,
  type AnswerResult,
} from '../../runs/answer-many.ts';
import { getDecision } from '../../runs/decision-repository.ts';
import { getRun } from '../../runs/run-repository.ts';
import { describeAnswer, toPendingJson } from '../../runs/views.ts';
import type { WordEdits } from '../../actions/words.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { cliContext } from '../context.ts';
import { EXIT, exitCodeForRun, printJson, printTable } from '../output.ts';

/** One question in full: what it is about, why it asks, and the words each drafted action would use. */
function showDecision(d: Decision): void {
  console.log(`${d.id}\n  from: ${d.sender}\n  subject: ${d.subject}\n  status: ${d.status}`);
  console.log(`  suggests: ${d.suggested_action} (confidence ${d.confidence.toFixed(2)}): ${d.reasoning}`);
  console.log(`  options: ${[...d.options, 'approve_suggested'].join(', ')}`);
  if (d.snippet) console.log(`\nMessage (start):\n  ${d.snippet}`);
  for (const w of d.drafts ?? []) {
    const by = w.by === 'offline' ? 'offline draft, written without a language model' : `by ${w.by}`;
    console.log(`\n--- ${w.action} (${by}) ---`);
    if (w.title !== null) console.log(`Title: ${w.title}\n`);
    console.log(w.body);
  }
  if (d.status === 'pending')
    console.log(
      `\nAnswer: handoff decide ${d.id} ACTION [--note "why"]${(d.drafts ?? []).length > 0 ? ' [--body TEXT | --body-file FILE]' : ''}`,
    );
}

/** The words given on the command line for the chosen action: --body, or the file --body-file names. */
function editsOf(options: { body?: string; bodyFile?: string; title?: string }): WordEdits {
  if (options.body !== undefined && options.bodyFile !== undefined)
    throw new InvalidInputError('give --body or --body-file, not both');
  let body = options.body;
  if (options.bodyFile !== undefined) {
    try {
      body = readFileSync(options.bodyFile === '-' ? 0 : options.bodyFile, 'utf8');
    } catch (error) {
      throw new InvalidInputError(`cannot read --body-file ${options.bodyFile}: ${(error as Error).message}`);
    }
  }
  return {
    ...(body !== undefined ? { body } : {}),
    ...(options.title !== undefined ? { title: options.title } : {}),
  };
}

interface PendingOptions {
  json?: boolean;
  show?: string;
  run?: string;
  workflow?: string;
  limit: number;
  cursor?: string;
}

export function registerDecisionCommands(program: Command): void {
  withPaging(
    program
      .command('pending')
      .description("the questions waiting for you, across runs (a run's oldest first; order: docs/lists.md)")
      .option('--show <DECISION_ID>', 'one question in full, with the draft each action would use')
      .option('--run <RUN_ID>', "only this run's questions")
      .option('--workflow <WORKFLOW_ID>', "only this workflow's questions"),
  )
    .option('--json', 'print JSON')
    .action(async (options: PendingOptions) => {
      const { engine } = await cliContext();
      if (options.show !== undefined) {
        const decision = await getDecision(engine.store, options.show);
        if (options.json) return printJson(toPendingJson(decision));
        return showDecision(decision);
      }
      const { show: _show, json: _json, ...ask } = options;
      const page = await decisionsPage(engine.store, { ...ask, status: 'pending' });
      const pending = page.items;
      printNextPage(`handoff pending${flags(ask)}`, page.next_cursor);
      if (options.json) return printJson(pending.map(toPendingJson));
      if (pending.length === 0) return console.log('Nothing is waiting for you.');
      printTable(
        ['decision', 'from', 'subject', 'suggested', 'conf'],
        pending.map((d) => [d.id, d.sender, d.subject, d.suggested_action, d.confidence.toFixed(2)]),
        40,
      );
      for (const d of pending)
        console.log(
          `\n${d.id}: ${d.reasoning}\n  options: ${[...d.options, 'approve_suggested'].join(', ')}${
            (d.drafts ?? []).length > 0
              ? `\n  drafted: ${d.drafts!.map((w) => w.action).join(', ')} (see --show)`
              : ''
          }`,
        );
      console.log(
        `\nAnswer one: handoff decide DECISION_ID ACTION --note "why"; read one in full: handoff pending --show DECISION_ID`,
      );
    });

  program
    .command('decide [ARGS...]')
    .usage(
      'ID [ID ...] ACTION [--note TEXT] [--once] [--this-workflow] | --all-suggested [--run RUN] [--workflow ID] [--from ADDRESS_OR_DOMAIN]',
    )
    .description(
      'answer questions: each ID with ACTION (the last word), or each waiting one with its own suggestion; a run resumes when all of its questions are answered',
    )
    .option('--note <TEXT>', 'why: the strongest signal for what Handoff learns')
    .option('--once', 'just this once: the answer teaches nothing and cancels nothing')
    .option(
      '--this-workflow',
      'keep what the answer teaches to this workflow (default: every workflow reading the same mailbox)',
    )
    .option(
      '--body <TEXT>',
      "the words the action carries, replacing the draft's (a reply's body, a ticket's)",
    )
    .option('--body-file <FILE>', 'the same, read from a file (- for stdin)')
    .option('--title <TEXT>', "a ticket's title, replacing the drafted one")
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
  body?: string;
  bodyFile?: string;
  title?: string;
  once?: boolean;
  thisWorkflow?: boolean;
  allSuggested?: boolean;
  run?: string;
  workflow?: string;
  from?: string;
  json?: boolean;
}

/** `--this-workflow`: what the answers teach is kept to their workflow. */
const scopeOf = (options: DecideOptions) => (options.thisWorkflow ? { scope: 'workflow' as const } : {});

/** A decision id as `decisionIdFor` makes them (`dec_46777dd6_02e11df179aa`): never an action. */
const DECISION_ID = /^dec_[0-9a-f]{8}_[0-9a-f]{12}$/;

/** The answers the command line asks for (null: nothing to answer, already said). */
async function answersFrom(
  args: string[],
  options: DecideOptions,
  command: Command,
): Promise<{ list: AnswerInput[]; leftForYou: Decision[] } | null> {
  const edits = editsOf(options);
  if (options.allSuggested) {
    if (edits.body !== undefined || edits.title !== undefined)
      command.error('error: --body and --title go with one answer, not with --all-suggested');
    if (args.length > 0)
      command.error('error: --all-suggested answers with each suggestion: give no ids or action');
    const { engine } = await cliContext();
    if (options.run !== undefined) await getRun(engine.store, options.run); // an unknown run: one line, exit 1
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
      ...scopeOf(options),
    }));
    return { list, leftForYou: picked.leftForYou };
  }
  if (options.run !== undefined || options.workflow !== undefined || options.from !== undefined)
    command.error('error: --run, --workflow and --from go with --all-suggested');
  if (args.length < 2) command.error('error: give one or more decision ids, then the action');
  const action = args.at(-1)!;
  if (DECISION_ID.test(action))
    command.error(
      `error: the action goes last: handoff decide ID [ID ...] ACTION (got the id "${action}" there)`,
    );
  const ids = [...new Set(args.slice(0, -1))];
  const note = options.note ?? null;
  return {
    list: ids.map((id) => ({ id, action, note, once: options.once === true, ...scopeOf(options), ...edits })),
    leftForYou: [],
  };
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

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { getDecision, listPending } from '../../runs/decision-repository.ts';
import { describeAnswer, toPendingJson } from '../../runs/views.ts';
import type { Decision } from '../../records/runs.ts';
import type { WordEdits } from '../../actions/words.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { cliContext } from '../context.ts';
import { exitCodeForRun, printJson, printTable } from '../output.ts';

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

export function registerDecisionCommands(program: Command): void {
  program
    .command('pending')
    .description('the questions waiting for you, across runs')
    .option('--show <DECISION_ID>', 'one question in full, with the draft each action would use')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean; show?: string }) => {
      const { engine } = await cliContext();
      if (options.show !== undefined) {
        const decision = await getDecision(engine.store, options.show);
        if (options.json) return printJson(toPendingJson(decision));
        return showDecision(decision);
      }
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
    .command('decide DECISION_ID ACTION')
    .description('answer one question; the run resumes when all of its questions are answered')
    .option('--note <TEXT>', 'why: the strongest signal for what Handoff learns (never part of any mail)')
    .option(
      '--body <TEXT>',
      "the words the action carries, replacing the draft's (a reply's body, a ticket's)",
    )
    .option('--body-file <FILE>', 'the same, read from a file (- for stdin)')
    .option('--title <TEXT>', "a ticket's title, replacing the drafted one")
    .option('--json', 'print JSON')
    .action(
      async (
        decisionId: string,
        action: string,
        options: { note?: string; body?: string; bodyFile?: string; title?: string; json?: boolean },
      ) => {
        const edits = editsOf(options);
        const { engine } = await cliContext();
        const { decide } = await import('../../runs/decide.ts');
        const result = await decide(engine, decisionId, action, options.note ?? null, edits);
        process.exitCode = exitCodeForRun(result.run_status); // the answer stands; a resumed run may fail
        if (options.json) return printJson(result);
        const answered = await getDecision(engine.store, decisionId);
        console.log(
          `Recorded for ${decisionId}: ${describeAnswer(answered)}. Run ${result.run_id} is ${result.run_status}.`,
        );
      },
    );
}

/**
 * Answering many questions at once, each independently, in one process: `handoff decide ID
 * [ID ...] ACTION`, `handoff decide --all-suggested`, `POST /api/decisions` and `POST
 * /api/runs/:id/accept-suggestions`. One answer refused (unknown, already answered, not an
 * option) changes nothing for it and does not stop the others.
 */
import { z } from 'zod';
import { errorMessage, InvalidInputError } from '../errors/index.ts';
import type { Decision } from '../records/runs.ts';
import { domainOf } from '../memory/match.ts';
import { listPending, pendingOfRun } from './decision-repository.ts';
import { recordAnswer } from './decide.ts';
import type { EngineDeps } from './deps.ts';
import { learnedFrom, type LearnedRuleJson } from './learned.ts';

/** The most answers one request (or command) may carry. */
export const MAX_ANSWERS = 500;

/** One answer as the API takes it. `body` is the text of a reply, for actions that send one. */
export const AnswerInputSchema = z.strictObject({
  id: z.string({ error: 'must be a decision id' }).min(1, { error: 'must not be empty' }),
  action: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  note: z.string({ error: 'must be a string or null' }).nullable().optional(),
  once: z.boolean({ error: 'must be true or false' }).optional(),
  /** "workflow": the rule it teaches is kept to the question's workflow (default "source": every workflow reading its mailbox). */
  scope: z.enum(['source', 'workflow'], { error: 'must be "source" or "workflow"' }).optional(),
  /** The words the chosen action carries, as the person wants them (a reply's body, a ticket's). */
  body: z.string({ error: 'must be a string or null' }).nullable().optional(),
  title: z.string({ error: 'must be a string or null' }).nullable().optional(),
});
export type AnswerInput = z.infer<typeof AnswerInputSchema>;

/** One result per answer, in the answers' order (`--json` of `handoff decide`, `POST /api/decisions`). */
export interface AnswerResult {
  id: string;
  action: string;
  ok: boolean;
  error?: string;
  /** The rule the answer taught (absent: it taught none, or it is learned elsewhere). */
  learned_rule?: LearnedRuleJson;
  /** What the answer taught, in words ("From now on: … → …", "Nothing learned (just this once)"). */
  learned?: string;
  /** Where the answer's run got to (absent when the answer was not taken). */
  run_id?: string;
  run_status?: string;
}

/**
 * Answers each in turn, independently: a refused answer is a result with `ok: false` and
 * the reason, never a throw. A run resumes when its last question is answered, whichever
 * answer of the batch that is.
 */
export async function answerEach(
  engine: EngineDeps,
  answers: readonly AnswerInput[],
): Promise<AnswerResult[]> {
  return (await answerEachAsStored(engine, answers)).map((a) => a.result);
}

/** `answerEach`, with each decision as its answer stored it (for words about the answer). */
export async function answerEachAsStored(
  engine: EngineDeps,
  answers: readonly AnswerInput[],
): Promise<{ result: AnswerResult; answered: Decision | null }[]> {
  // Where the host carries answers out in another process (the local server's run children),
  // a batch is handed over after it, not carried out answer by answer in this thread; what
  // its last answer resumes is carried out by the resume. Elsewhere, each as it is recorded.
  const handOver = answers.length > 1 ? engine.carryElsewhere : undefined;
  const results: { result: AnswerResult; answered: Decision | null; waits: boolean }[] = [];
  for (const answer of answers) results.push(await answerOne(engine, answer, !handOver));
  // A run the batch went on to resume is carried out by its resume: only runs still waiting now.
  const resumed = new Set(results.flatMap((r) => (r.answered && !r.waits ? [r.answered.run_id] : [])));
  const stillWaiting = results.flatMap((r) =>
    r.answered && r.waits && !resumed.has(r.answered.run_id) ? [r.answered.id] : [],
  );
  // Carried out there as here (carryOutSentAnswer: once; an answer whose run resumed meanwhile is the resume's).
  if (handOver && stillWaiting.length > 0) handOver(stillWaiting);
  return results.map(({ result, answered }) => ({ result, answered }));
}

async function answerOne(
  engine: EngineDeps,
  answer: AnswerInput,
  carry: boolean,
): Promise<{ result: AnswerResult; answered: Decision | null; waits: boolean }> {
  try {
    const decided = await recordAnswer(engine, answer.id, answer.action, answer.note ?? null, undefined, [], {
      once: answer.once ?? false,
      ...(answer.scope ? { scope: answer.scope } : {}),
      edits: { body: answer.body, title: answer.title },
      carry,
    });
    const learned = learnedFrom(decided.answered, decided.learned);
    const result: AnswerResult = {
      id: answer.id,
      action: answer.action,
      ok: true,
      ...(learned.rule ? { learned_rule: learned.rule } : {}),
      learned: learned.words,
      run_id: decided.run_id,
      run_status: decided.run_status,
    };
    return { result, answered: decided.answered, waits: decided.run_status === 'waiting' };
  } catch (error) {
    return {
      result: { id: answer.id, action: answer.action, ok: false, error: errorMessage(error) },
      answered: null,
      waits: false,
    };
  }
}

/** Which waiting questions "accept the suggestions" takes. */
export interface SuggestionFilter {
  run?: string | undefined;
  workflow?: string | undefined;
  /** An exact address (`a@b.example`) or a whole domain (`b.example`, `@b.example`). */
  from?: string | undefined;
}

/** The waiting questions to accept, and those left for the person (an irreversible suggestion). */
export interface SuggestionPick {
  answers: AnswerInput[];
  /** The questions `answers` answers, in its order (for words about what accepting does). */
  accepted: Decision[];
  /** Irreversible suggestions: never accepted in bulk, each is answered on its own. */
  leftForYou: Decision[];
}

/**
 * The waiting questions matching `filter`, each answered with its own suggestion, oldest
 * first. A suggestion that is irreversible (sending, deleting) is never accepted in bulk:
 * the gate asked because it always asks, and so does this.
 */
export async function suggestedAnswers(
  engine: Pick<EngineDeps, 'store'>,
  filter: SuggestionFilter,
): Promise<SuggestionPick> {
  const waiting = filter.run ? await pendingOfRun(engine.store, filter.run) : await listPending(engine.store);
  const from = filter.from?.trim().toLowerCase();
  if (from !== undefined && from.replace(/^@/, '') === '')
    throw new InvalidInputError('--from needs an address (a@b.example) or a domain (b.example)');
  const matching = waiting.filter(
    (d) =>
      (!filter.run || d.run_id === filter.run) &&
      (!filter.workflow || d.workflow_id === filter.workflow) &&
      (from === undefined || fromMatches(d.sender, from)),
  );
  const accepted = matching.filter(acceptableInBulk);
  return {
    answers: accepted.map((d) => ({ id: d.id, action: 'approve_suggested' })),
    accepted,
    leftForYou: matching.filter((d) => !acceptableInBulk(d)),
  };
}

/** Whether a waiting question's suggestion may be taken in bulk: never an irreversible one. */
export function acceptableInBulk(d: Pick<Decision, 'reason'>): boolean {
  return d.reason !== 'irreversible';
}

/** Whether a sender is the address, or of the domain, `from` names (lower-cased). */
export function fromMatches(sender: string, from: string): boolean {
  const address = sender.toLowerCase();
  if (from.includes('@') && !from.startsWith('@')) return address === from;
  return domainOf(address) === from.replace(/^@/, '');
}

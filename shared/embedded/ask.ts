import type { Ask, GateQuestion, GateResponse } from './types.ts';

/** The default time the person has to answer one turn's questions. */
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;

class AskTimeout extends Error {}

/**
 * Asks the person through the host's `ask`, and never fails: an `ask` that throws, outlasts
 * `timeoutMs` (its signal is aborted, and a late answer is ignored) or returns no answers
 * yields a response with no answers, saying why. No answer is never a licence to act.
 */
export async function askPerson(
  ask: Ask,
  questions: readonly GateQuestion[],
  timeoutMs: number,
): Promise<GateResponse> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new AskTimeout(`no answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    const answers = await Promise.race([
      Promise.resolve().then(() => ask(questions, controller.signal)),
      timedOut,
    ]);
    if (!Array.isArray(answers) || answers.length === 0) return { answers: [], unreachable: 'no_answer' };
    const asked = new Set(questions.map((q) => q.id));
    return {
      answers: answers
        .filter((a) => a && typeof a.id === 'string' && asked.has(a.id))
        .map((a) => ({
          id: a.id,
          action: a.action === 'approve' ? 'approve' : 'skip',
          note: typeof a.note === 'string' && a.note.trim() ? a.note.trim() : null,
        })),
      unreachable: null,
    };
  } catch (error) {
    return { answers: [], unreachable: error instanceof AskTimeout ? 'ask_timeout' : 'ask_failed' };
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) controller.abort(new Error('the gate no longer waits'));
  }
}

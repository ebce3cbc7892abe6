/**
 * Answering many questions over the API, each independently, one result per answer:
 * `POST /api/decisions` (`{"answers": [{"id", "action", "note"?, "once"?, "body"?}]}`, up to
 * MAX_ANSWERS), `POST /api/runs/:id/accept-suggestions` (each of the run's waiting questions
 * with its own suggestion; an irreversible one is left for the person), and `POST
 * /api/rules/:id/undo` (revokes the rule an answer taught, that rule alone).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { revokeRule } from '../memory/rules-repository.ts';
import { answerEach, AnswerInputSchema, MAX_ANSWERS, suggestedAnswers } from '../runs/answer-many.ts';
import { recordAnswer } from '../runs/decide.ts';
import { learnedFrom, learnedRuleJson } from '../runs/learned.ts';
import { getRun } from '../runs/run-repository.ts';
import type { WebDeps } from './web-deps.ts';

const SHAPE =
  '{"answers": [{"id": "dec_…", "action": "archive", "note"?: "why", "once"?: true, "scope"?: "workflow", "body"?: "…"}]}';

const AnswersBody = z.strictObject({
  answers: z
    .array(AnswerInputSchema, { error: 'must be a list of answers' })
    .min(1, { error: 'must hold at least one answer' })
    .max(MAX_ANSWERS, {
      error: `holds more than ${MAX_ANSWERS} answers: send them in requests of ${MAX_ANSWERS}`,
    }),
});

const ONE_SHAPE =
  '{"action": string, "note"?: string, "once"?: boolean, "scope"?: "source" | "workflow", "body"?: string, "title"?: string}';
const DecisionBody = AnswerInputSchema.omit({ id: true });

/** The body as JSON, or a 400 with one line. */
async function jsonBody(c: Context, shape: string): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text()) as unknown;
  } catch {
    throw new HTTPException(400, { message: `body must be JSON like ${shape}` });
  }
}

/** The first thing wrong with a body, in one line. */
function firstIssue(error: z.ZodError, shape: string): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  const tooMany = issue?.code === 'too_big' && issue.path.length === 1;
  return `body ${where}${issue?.message ?? 'is not valid'}${tooMany ? '' : ` (expected ${shape})`}`;
}

/** The answers the body carries, or a 400 naming the first thing wrong. */
function answersOf(raw: unknown): z.infer<typeof AnswersBody>['answers'] {
  const body = AnswersBody.safeParse(raw);
  if (body.success) return body.data.answers;
  throw new HTTPException(400, { message: firstIssue(body.error, SHAPE) });
}

/** Registers the routes; `limit` is the app's body limit. */
export function registerAnswerRoutes(app: Hono, web: WebDeps, limit: MiddlewareHandler): void {
  app.post('/api/decisions', limit, async (c) => {
    const answers = answersOf(await jsonBody(c, SHAPE));
    return c.json(await answerEach(web.engine, answers));
  });

  // One answer: 404 unknown, 409 answered already, 422 not an option (the app's error mapping).
  app.post('/api/decisions/:id', limit, async (c) => {
    const body = DecisionBody.safeParse(await jsonBody(c, ONE_SHAPE));
    if (!body.success) throw new HTTPException(400, { message: firstIssue(body.error, ONE_SHAPE) });
    const { action, note, once, scope, body: words, title } = body.data;
    const decided = await recordAnswer(web.engine, c.req.param('id'), action, note ?? null, undefined, [], {
      once: once ?? false,
      ...(scope ? { scope } : {}),
      edits: { body: words, title },
    });
    const learned = learnedFrom(decided.answered, decided.learned);
    return c.json({
      decision_id: decided.decision_id,
      action,
      run_id: decided.run_id,
      run_status: decided.run_status,
      learned: learned.words,
      ...(learned.rule ? { learned_rule: learned.rule } : {}),
    });
  });

  app.post('/api/runs/:id/accept-suggestions', async (c) => {
    const run = await getRun(web.engine.store, c.req.param('id')); // 404 for an unknown run
    const { answers } = await suggestedAnswers(web.engine, { run: run.id });
    return c.json(await answerEach(web.engine, answers));
  });

  app.post('/api/rules/:id/undo', async (c) => {
    const rule = await revokeRule(web.engine.store, web.engine.mirror, c.req.param('id'));
    return c.json({ revoked: learnedRuleJson(rule) });
  });
}

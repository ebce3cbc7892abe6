/**
 * Answering many questions over the API, each independently, one result per answer:
 * `POST /api/decisions` (`{"answers": [{"id", "action", "note"?, "once"?, "body"?}]}`, up to
 * MAX_ANSWERS), `POST /api/runs/:id/accept-suggestions` (each of the run's waiting questions
 * with its own suggestion; an irreversible one is left for the person), and `POST
 * /api/rules/:id/undo` (revokes the rule an answer taught, that rule alone).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { revokeRule } from '../memory/rules-repository.ts';
import { answerEach, AnswerInputSchema, MAX_ANSWERS, suggestedAnswers } from '../runs/answer-many.ts';
import { recordAnswer } from '../runs/decide.ts';
import { learnedFrom, learnedRuleJson } from '../runs/learned.ts';
import { getRun } from '../runs/run-repository.ts';
import { defineRoute, firstIssue, serveRoute } from './api-route.ts';
import { AnswersBody, IdParams } from './api-schemas.ts';
import type { WebDeps } from './web-deps.ts';

const SHAPE =
  '{"answers": [{"id": "dec_…", "action": "archive", "note"?: "why", "once"?: true, "scope"?: "workflow", "body"?: "…"}]}';

const ONE_SHAPE =
  '{"action": string, "note"?: string, "once"?: boolean, "scope"?: "source" | "workflow", "body"?: string, "title"?: string}';
const DecisionBody = AnswerInputSchema.omit({ id: true });

export const answerManyRoute = defineRoute({
  method: 'post',
  path: '/api/decisions',
  operationId: 'answerMany',
  summary: `Answer up to ${MAX_ANSWERS} questions, each independently`,
  description:
    'One result per answer, in order; a refused answer (unknown, already answered, not an option) changes nothing for it and does not stop the others.',
  body: { schema: AnswersBody, shape: SHAPE },
  responses: {
    200: { description: 'One result per answer.', schema: 'AnswerResults' },
    400: 'BadRequest',
    401: 'Unauthorized',
    413: 'TooLarge',
  },
});

export const acceptSuggestionsRoute = defineRoute({
  method: 'post',
  path: '/api/runs/{id}/accept-suggestions',
  operationId: 'acceptSuggestions',
  summary: "Answer each of a run's waiting questions with its own suggestion",
  description: 'An irreversible suggestion (sending, deleting) is never accepted in bulk: it keeps waiting.',
  params: IdParams.extend({ id: IdParams.shape.id.meta({ description: 'The run id.' }) }),
  responses: {
    200: { description: 'One result per question answered.', schema: 'AnswerResults' },
    401: 'Unauthorized',
    404: 'NotFound',
  },
});

export const undoRuleRoute = defineRoute({
  method: 'post',
  path: '/api/rules/{id}/undo',
  operationId: 'undoRule',
  summary: 'Revoke the rule an answer taught (that rule alone)',
  params: IdParams.extend({
    id: IdParams.shape.id.meta({ description: 'The rule id (`learned_rule.id`).' }),
  }),
  responses: { 200: { description: 'Revoked.', schema: 'Revoked' }, 401: 'Unauthorized', 404: 'NotFound' },
});

/** The answering routes, for the OpenAPI document. */
export const ANSWER_ROUTES = [answerManyRoute, acceptSuggestionsRoute, undoRuleRoute];

/** The body as JSON, or a 400 with one line. */
async function jsonBody(c: Context, shape: string): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text()) as unknown;
  } catch {
    throw new HTTPException(400, { message: `body must be JSON like ${shape}` });
  }
}

/** Registers the routes; `limit` is the app's body limit. */
export function registerAnswerRoutes(app: Hono, web: WebDeps, limit: MiddlewareHandler): void {
  serveRoute(
    app,
    answerManyRoute,
    async (c, { body }) => c.json(await answerEach(web.engine, body.answers)),
    limit,
  );

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

  serveRoute(app, acceptSuggestionsRoute, async (c, { params }) => {
    const run = await getRun(web.engine.store, params.id); // 404 for an unknown run
    const { answers } = await suggestedAnswers(web.engine, { run: run.id });
    return c.json(await answerEach(web.engine, answers));
  });

  serveRoute(app, undoRuleRoute, async (c, { params }) => {
    const rule = await revokeRule(web.engine.store, web.engine.mirror, params.id);
    return c.json({ revoked: learnedRuleJson(rule) });
  });
}

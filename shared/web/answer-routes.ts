/**
 * The questions over the API: `GET /api/pending` (those waiting), `POST /api/decisions/:id`
 * (answer one), and answering many, each independently, one result per answer:
 * `POST /api/decisions` (`{"answers": [{"id", "action", "note"?, "once"?, "body"?}]}`, up to
 * MAX_ANSWERS), `POST /api/runs/:id/accept-suggestions` (each of the run's waiting questions
 * with its own suggestion; an irreversible one is left for the person), and `POST
 * /api/rules/:id/undo` (revokes the rule an answer taught, that rule alone). Loaded with the
 * first request to one of them (api-modules.ts).
 */
import { revokeRule } from '../memory/rules-repository.ts';
import { answerEach, AnswerInputSchema, MAX_ANSWERS, suggestedAnswers } from '../runs/answer-many.ts';
import { recordAnswer } from '../runs/decide.ts';
import { listPending } from '../runs/decision-repository.ts';
import { learnedFrom, learnedRuleJson } from '../runs/learned.ts';
import { getRun } from '../runs/run-repository.ts';
import { toPendingJson } from '../runs/views.ts';
import { defineRoute, serveRoute } from './api-route.ts';
import { AnswersBody, IdParams, pathParam } from './api-schemas.ts';
import type { RouteSink } from './lazy-routes.ts';
import type { WebDeps } from './web-deps.ts';

const SHAPE =
  '{"answers": [{"id": "dec_…", "action": "archive", "note"?: "why", "once"?: true, "scope"?: "workflow", "body"?: "…"}]}';

const ONE_SHAPE =
  '{"action": string, "note"?: string, "once"?: boolean, "scope"?: "source" | "workflow", "body"?: string, "title"?: string}';
const DecisionBody = AnswerInputSchema.omit({ id: true }).meta({ id: 'DecisionAnswer' });

export const pendingRoute = defineRoute({
  method: 'get',
  path: '/api/pending',
  operationId: 'listPending',
  summary: 'Questions waiting for a person',
  responses: {
    200: { description: 'Every pending decision.', schema: 'PendingDecisions' },
    401: 'Unauthorized',
  },
});

export const decideRoute = defineRoute({
  method: 'post',
  path: '/api/decisions/{id}',
  operationId: 'decide',
  summary: 'Answer a decision',
  description: 'Answers cannot be changed; the rule one taught can be undone (`POST /api/rules/{id}/undo`).',
  params: pathParam('id', 'The decision id.'),
  body: { schema: DecisionBody, shape: ONE_SHAPE },
  responses: {
    200: { description: 'Recorded.', schema: 'DecideResult' },
    400: 'BadRequest',
    401: 'Unauthorized',
    404: 'NotFound',
    409: 'Conflict',
    413: 'TooLarge',
    422: 'Unprocessable',
  },
});

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
export const ANSWER_ROUTES = [
  pendingRoute,
  decideRoute,
  answerManyRoute,
  acceptSuggestionsRoute,
  undoRuleRoute,
];

/** Registers the routes' handlers (the app's body ceiling bounds every body). */
export function registerAnswerRoutes(app: RouteSink, web: WebDeps): void {
  serveRoute(app, pendingRoute, async (c) =>
    c.json((await listPending(web.engine.store)).map(toPendingJson)),
  );

  serveRoute(app, answerManyRoute, async (c, { body }) => c.json(await answerEach(web.engine, body.answers)));

  // One answer: 404 unknown, 409 answered already, 422 not an option (the app's error mapping).
  serveRoute(app, decideRoute, async (c, { params, body }) => {
    const { action, note, once, scope, body: words, title } = body;
    const decided = await recordAnswer(web.engine, params.id, action, note ?? null, undefined, [], {
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

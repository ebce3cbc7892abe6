/** The answering routes' part of the OpenAPI document (shared/web/openapi.ts merges it in). */
import { MAX_ANSWERS } from '../runs/answer-many.ts';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json): Json => ({ 'application/json': { schema } });
const ok = (description: string, schema: Json): Json => ({ description, content: json(schema) });
const error = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const idParam = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});
const results = (description: string): Json => ok(description, { type: 'array', items: ref('AnswerResult') });

export const ANSWER_SCHEMAS: Record<string, Json> = {
  LearnedRule: {
    type: 'object',
    description: 'The rule an answer taught; `POST /api/rules/{id}/undo` revokes it alone.',
    required: ['id', 'pattern', 'action'],
    properties: { id: { type: 'string' }, pattern: { type: 'string' }, action: { type: 'string' } },
  },
  Answer: {
    type: 'object',
    required: ['id', 'action'],
    properties: {
      id: { type: 'string', minLength: 1, description: 'The decision id.' },
      action: {
        type: 'string',
        minLength: 1,
        description: 'One of its options, "approve_suggested" or "skip".',
      },
      note: { type: ['string', 'null'], description: 'Why; the learner reads it.' },
      once: {
        type: 'boolean',
        description: 'Just this once: the answer teaches nothing and cancels nothing.',
      },
      scope: {
        enum: ['source', 'workflow'],
        description:
          'Where the rule it teaches applies: "source" (default), every workflow reading the same mailbox; "workflow", only this one.',
      },
      body: { type: 'string', description: 'The text of a reply, for actions that send one.' },
    },
    additionalProperties: false,
  },
  AnswerResult: {
    type: 'object',
    required: ['id', 'action', 'ok'],
    properties: {
      id: { type: 'string' },
      action: { type: 'string' },
      ok: { type: 'boolean', description: 'The answer was taken.' },
      error: { type: 'string', description: 'Why it was not (one line); nothing changed for it.' },
      learned_rule: ref('LearnedRule'),
      learned: {
        type: 'string',
        description: 'What it taught, in words: "From now on: … → …", or "Nothing learned (just this once)".',
      },
      run_id: { type: 'string' },
      run_status: { type: 'string', description: 'Where its run got to after the answer.' },
    },
  },
};

export const ANSWER_PATHS: Record<string, Json> = {
  '/api/decisions': {
    post: {
      operationId: 'answerMany',
      summary: `Answer up to ${MAX_ANSWERS} questions, each independently`,
      description:
        'One result per answer, in order; a refused answer (unknown, already answered, not an option) changes nothing for it and does not stop the others.',
      requestBody: {
        required: true,
        content: json({
          type: 'object',
          required: ['answers'],
          properties: {
            answers: { type: 'array', minItems: 1, maxItems: MAX_ANSWERS, items: ref('Answer') },
          },
          additionalProperties: false,
        }),
      },
      responses: {
        '200': results('One result per answer.'),
        '400': error('BadRequest'),
        '401': error('Unauthorized'),
        '413': error('TooLarge'),
      },
    },
  },
  '/api/runs/{id}/accept-suggestions': {
    post: {
      operationId: 'acceptSuggestions',
      summary: "Answer each of a run's waiting questions with its own suggestion",
      description:
        'An irreversible suggestion (sending, deleting) is never accepted in bulk: it keeps waiting.',
      parameters: [idParam('id', 'The run id.')],
      responses: {
        '200': results('One result per question answered.'),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
  '/api/rules/{id}/undo': {
    post: {
      operationId: 'undoRule',
      summary: 'Revoke the rule an answer taught (that rule alone)',
      parameters: [idParam('id', 'The rule id (`learned_rule.id`).')],
      responses: {
        '200': ok('Revoked.', {
          type: 'object',
          required: ['revoked'],
          properties: { revoked: ref('LearnedRule') },
        }),
        '401': error('Unauthorized'),
        '404': error('NotFound'),
      },
    },
  },
};

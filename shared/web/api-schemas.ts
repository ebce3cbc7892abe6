/**
 * The zod schemas of the routes' paths, and of the answer routes' bodies (validated by api-route.ts); the
 * lists' queries are in list-queries.ts, what the routes return in api-responses.ts. A schema
 * with a `meta({ id })` is one component of `/api/openapi.json`.
 */
import { z } from 'zod';
import { AnswerInputSchema, MAX_ANSWERS } from '../runs/answer-many.ts';

const text = () => z.string().min(1);

export const IdParams = z.object({ id: text().meta({ description: 'The id.' }) });

/** A path's one parameter, `name` (a non-empty string), described. */
export const pathParam = <K extends string>(name: K, description: string) =>
  z.object({ [name]: text().meta({ description }) } as Record<K, z.ZodString>);

export const AnswersBody = z.strictObject({
  answers: z
    .array(AnswerInputSchema.meta({ id: 'Answer' }), { error: 'must be a list of answers' })
    .min(1, { error: 'must hold at least one answer' })
    .max(MAX_ANSWERS, {
      error: `holds more than ${MAX_ANSWERS} answers: send them in requests of ${MAX_ANSWERS}`,
    }),
});

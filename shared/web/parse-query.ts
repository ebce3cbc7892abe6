/** A page's query string checked against its zod schema: the parsed query, or a one-line 400. */
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';

/** The query parsed by `schema`, or a 400 naming the first thing wrong, in one line. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new HTTPException(400, { message: `query ${where}${issue?.message ?? 'is not valid'}` });
}

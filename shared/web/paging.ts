/**
 * One page of a list the API returns: `?limit=&cursor=` → `{items, next_cursor}`. The cursor
 * is opaque to callers (where the next page starts); `next_cursor` is null on the last page.
 */
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

/** The paging part of a list's query. */
export const PageQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_PAGE, { error: `must be at most ${MAX_PAGE}` })
    .default(DEFAULT_PAGE),
  cursor: z.string().min(1).optional(),
});

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

const encode = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');

function decode(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match)
    throw new HTTPException(400, { message: 'cursor: not one this API gave; start again without it' });
  return Number(match[1]);
}

/** The page of `all` the query names. */
export function pageOf<T>(all: readonly T[], query: { limit: number; cursor?: string | undefined }): Page<T> {
  const from = decode(query.cursor);
  const items = all.slice(from, from + query.limit);
  const next = from + items.length;
  return { items, next_cursor: next < all.length ? encode(next) : null };
}

/** The query parsed by `schema`, or a 400 naming the first thing wrong, in one line. */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new HTTPException(400, { message: `query ${where}${issue?.message ?? 'is not valid'}` });
}

/** The list routes' queries (list-routes.ts, loaded with the first list request). */
import { z } from 'zod';
import { RunStatusSchema } from '../records/runs.ts';
import { DEFAULT_PAGE, MAX_PAGE } from '../runs/list-pages.ts';

const text = () => z.string().min(1);
const filter = (description: string) => text().optional().meta({ description });

/** `?limit=&cursor=`, the part of every list's query that pages. */
export const Paging = {
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_PAGE, { error: `must be at most ${MAX_PAGE}` })
    .default(DEFAULT_PAGE)
    .meta({ description: `Items per page (default ${DEFAULT_PAGE}, at most ${MAX_PAGE}).` }),
  cursor: filter("The previous page's `next_cursor`."),
};

export const RunsQuery = z.strictObject({
  workflow: filter("Only this workflow's runs."),
  status: RunStatusSchema.optional().meta({ description: 'Only runs in this state.' }),
  ...Paging,
});

export const DecisionStatusSchema = z.enum(['pending', 'answered', 'expired']);

export const DecisionsQuery = z.strictObject({
  status: z
    .enum([...DecisionStatusSchema.options, 'waiting'])
    .optional()
    .meta({ description: 'Only decisions in this state (`waiting` is the same as `pending`).' }),
  run: filter("Only this run's."),
  workflow: filter("Only this workflow's."),
  from: filter('Only mail from this address, or from this domain.'),
  ...Paging,
});

export const RulesQuery = z.strictObject({
  workflow: filter("Only this workflow's rules."),
  source: z
    .enum(['you', 'learned'])
    .optional()
    .meta({ description: 'Only rules you set, or only learned ones.' }),
  ...Paging,
});

export const AuditQuery = z.strictObject({
  run: filter("Only this run's entries (404 for an unknown run)."),
  ...Paging,
});

export const NoQuery = z.strictObject({});

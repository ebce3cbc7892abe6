/**
 * Items that arrive in a webhook's body (`source: { type: event }`): Handoff's own item
 * shape, or a GitHub `pull_request` event turned into one item. What a run stores is always
 * the own shape, so every process that resumes it reads the same items.
 */
import { z } from 'zod';

/** Most items one webhook may carry. */
export const MAX_EVENT_ITEMS = 100;

const Field = z.union([z.string(), z.number()]);

/** One item in Handoff's own shape. */
export const EventItemSchema = z.strictObject({
  id: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }).max(300),
  /** Who it is from: an address or a handle. */
  sender: z.string({ error: 'must be a string' }).optional(),
  sender_name: z.string({ error: 'must be a string' }).optional(),
  subject: z.string({ error: 'must be a string' }),
  text: z.string({ error: 'must be a string' }).default(''),
  date: z.string({ error: 'must be a string' }).optional(),
  /** Facts a classifier may use (`pull-request`, `bot-author`, ...). */
  hints: z.array(z.string({ error: 'must be a string' })).default([]),
  /** Values an integration's argument template may name as `{{item.<key>}}`. */
  fields: z
    .record(z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'keys must be snake_case' }), Field)
    .default({}),
});
export type EventItem = z.infer<typeof EventItemSchema>;

/** A webhook body in Handoff's own shape: `{ "items": [ { "id", "subject", "text", ... } ] }`. */
export const EventBodySchema = z.strictObject({
  items: z
    .array(EventItemSchema, { error: 'must be a list' })
    .min(1, { error: 'must hold at least one item' })
    .max(MAX_EVENT_ITEMS, { error: `at most ${MAX_EVENT_ITEMS} items` }),
});
export type EventBody = z.infer<typeof EventBodySchema>;

const OWN_SHAPE = '(expected {"items": [{"id": string, "subject": string, "text": string, ...}]})';

/** The first problem of a zod error as `items.0.id: must be a string`. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue?.message ?? 'is not valid'}`;
}

/** Reads a body in the own shape; `null` body text means it was not JSON. */
export function parseEventBody(raw: unknown): { ok: true; body: EventBody } | { ok: false; reason: string } {
  const parsed = EventBodySchema.safeParse(raw);
  return parsed.success
    ? { ok: true, body: parsed.data }
    : { ok: false, reason: `body ${firstIssue(parsed.error)} ${OWN_SHAPE}` };
}

/** The parts of GitHub's `pull_request` event a review needs (the payload carries far more). */
const PullRequestEventSchema = z.object({
  action: z.string(),
  number: z.number().int(),
  pull_request: z.object({
    title: z.string(),
    body: z.string().nullable().optional(),
    html_url: z.string().optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
    draft: z.boolean().optional(),
    user: z.object({ login: z.string(), type: z.string().optional() }),
    head: z.object({ sha: z.string().regex(/^[0-9a-f]{7,64}$/i), ref: z.string().optional() }),
    base: z.object({ ref: z.string() }).optional(),
    changed_files: z.number().int().optional(),
    additions: z.number().int().optional(),
    deletions: z.number().int().optional(),
    commits: z.number().int().optional(),
  }),
  repository: z.object({ name: z.string(), owner: z.object({ login: z.string() }) }),
});

/** The `pull_request` actions that ask for a review; the others start no run. */
export const REVIEW_ACTIONS: readonly string[] = ['opened', 'reopened', 'synchronize', 'ready_for_review'];

/** A pull request's description beyond this is cut (the item is stored with its run). */
const MAX_BODY_CHARS = 16_000;

/** At most this many lines changed, in this many files, is a small change (a `small-change` hint). */
const SMALL = { lines: 40, files: 3 };

/** Turns a GitHub `pull_request` event into one item, or says why it cannot. */
export function pullRequestItem(raw: unknown): { ok: true; item: EventItem } | { ok: false; reason: string } {
  const parsed = PullRequestEventSchema.safeParse(raw);
  if (!parsed.success)
    return { ok: false, reason: `not a GitHub pull_request event: ${firstIssue(parsed.error)}` };
  const { number, pull_request: pr, repository } = parsed.data;
  const owner = repository.owner.login;
  const repo = repository.name;
  const lines = (pr.additions ?? 0) + (pr.deletions ?? 0);
  const stats =
    `${pr.changed_files ?? '?'} changed files, +${pr.additions ?? '?'} -${pr.deletions ?? '?'}` +
    (pr.commits !== undefined ? `, ${pr.commits} commits` : '');
  const text = [
    pr.title,
    '',
    cut((pr.body ?? '').trim()) || '(no description)',
    '',
    `${stats}; ${pr.head.ref ?? pr.head.sha} into ${pr.base?.ref ?? 'the default branch'}` +
      (pr.draft ? ' (draft)' : ''),
    ...(pr.html_url ? [pr.html_url] : []),
  ].join('\n');
  const hints = ['pull-request'];
  if (pr.user.type === 'Bot' || /\[bot\]$/.test(pr.user.login)) hints.push('bot-author');
  if (pr.changed_files !== undefined && pr.changed_files <= SMALL.files && lines <= SMALL.lines)
    hints.push('small-change');
  if (pr.draft) hints.push('draft');
  return {
    ok: true,
    item: {
      id: `${owner}/${repo}#${number}@${pr.head.sha}`,
      sender: `${pr.user.login}@users.noreply.github.com`,
      sender_name: pr.user.login,
      subject: pr.title,
      text,
      ...((pr.updated_at ?? pr.created_at) ? { date: (pr.updated_at ?? pr.created_at)! } : {}),
      hints,
      fields: { owner, repo, number, head_sha: pr.head.sha, url: pr.html_url ?? '' },
    },
  };
}

function cut(text: string): string {
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS - 1)}…` : text;
}

/** The action of a `pull_request` event (`opened`, `closed`, ...), or null when it has none. */
export function pullRequestAction(raw: unknown): string | null {
  const action = (raw as { action?: unknown } | null)?.action;
  return typeof action === 'string' ? action : null;
}

/** The items a run stored (its trigger's detail); none when it stored nothing readable. */
export function storedItems(detail: string | null): EventItem[] {
  if (!detail) return [];
  try {
    const parsed = EventBodySchema.safeParse(JSON.parse(detail));
    return parsed.success ? parsed.data.items : [];
  } catch {
    return [];
  }
}

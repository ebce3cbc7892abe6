/**
 * The workflow file format (YAML or JSON): what an agent watches, what it may
 * do, and which choices a person gets at the gate.
 */
import { isAbsolute } from 'node:path';
import { Cron } from 'croner';
import { z } from 'zod';
import { SOURCE_TYPES, sourceCan } from '../sources/source-types.ts';

/** Actions the Maildir source can carry out. `skip` is always available and never declared. */
export const MAILDIR_ACTIONS = SOURCE_TYPES.maildir.actions;

/** The gate option that is always available: do nothing with the item. */
export const SKIP = 'skip';

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const SNAKE = /^[a-z][a-z0-9_]*$/;
/** An integration's tool as an action: `<entry>__<tool>` (see `handoff integrations`). */
const INTEGRATION_ACTION = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*__[a-z0-9_]+$/;
const CRON = /^cron\((.*)\)$/;
const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;

/** Allowed characters per EventBridge cron field (min hour day-of-month month day-of-week year). */
const CRON_FIELDS: readonly { name: string; chars: RegExp }[] = [
  { name: 'minutes', chars: /^[0-9,\-*/]+$/ },
  { name: 'hours', chars: /^[0-9,\-*/]+$/ },
  { name: 'day-of-month', chars: /^[0-9,\-*/?LW]+$/ },
  { name: 'month', chars: /^([0-9,\-*/]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)+$/i },
  { name: 'day-of-week', chars: /^([0-9,\-*?L#]|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i },
  { name: 'year', chars: /^[0-9,\-*/]+$/ },
];

const TriggerSchema = z
  .strictObject({
    manual: z.literal(true, { error: 'must be true (or leave it out)' }).optional(),
    schedule: z.string({ error: 'must be a string like "cron(0 8 * * ? *)" or "rate(1 hour)"' }).optional(),
    webhook: z.literal(true, { error: 'must be true (or leave it out)' }).optional(),
  })
  .superRefine((t, ctx) => {
    const kinds = (['manual', 'schedule', 'webhook'] as const).filter((k) => t[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'needs one of manual: true, schedule: "...", webhook: true'
            : `must have exactly one kind, got ${kinds.join(' and ')}`,
      });
    }
    if (t.schedule !== undefined) {
      const problem = scheduleProblem(t.schedule);
      if (problem) ctx.addIssue({ code: 'custom', path: ['schedule'], message: problem });
    }
  });

const SOURCE_KINDS = 'must be "maildir", "imap" or "event"';

const MaildirSourceSchema = z.strictObject({
  type: z.literal('maildir', { error: SOURCE_KINDS }),
  path: z
    .string({ error: 'must be a string (an absolute path)' })
    .refine((p) => isAbsolute(p), { message: 'must be an absolute path' }),
});

const MAILBOX = z.string({ error: 'must be a mailbox name' }).trim().min(1, { message: 'must not be empty' });

const isLoopback = (host: string): boolean => ['127.0.0.1', 'localhost', '::1'].includes(host);

/** Where an OAuth2 access token is refreshed: a known provider, or `token_url` (which overrides it). */
const OAuthSchema = z
  .strictObject({
    provider: z.enum(['google', 'microsoft', 'custom'], {
      error: 'must be "google", "microsoft" or "custom"',
    }),
    token_url: z
      .url({ error: 'must be a URL', protocol: /^https?$/ })
      .refine(
        (u) => {
          const url = new URL(u);
          return url.protocol === 'https:' || isLoopback(url.hostname.replace(/^\[|\]$/g, ''));
        },
        {
          message:
            'must be https:// unless it is on this machine (a refresh token never crosses the network in the clear)',
        },
      )
      .optional(),
  })
  .refine((o) => o.provider !== 'custom' || o.token_url !== undefined, {
    path: ['token_url'],
    message: 'is needed with provider: custom',
  });

/** An IMAP mailbox; `credential` names the password in the credential store (`handoff credentials set`). */
const CREDENTIAL_NAME = z.string({ error: 'must be a credential name' }).regex(/^[A-Z][A-Z0-9_]{0,63}$/, {
  message: 'must be a credential name (uppercase letters, digits, _), as in `handoff credentials set`',
});

const ImapSourceSchema = z
  .strictObject({
    type: z.literal('imap', { error: SOURCE_KINDS }),
    host: z.string({ error: 'must be a host name' }).trim().min(1, { message: 'must not be empty' }),
    port: z
      .number({ error: 'must be a port number' })
      .int({ message: 'must be a port number' })
      .min(1, { message: 'must be a port number' })
      .max(65535, { message: 'must be a port number' }),
    /** true: implicit TLS (port 993). false: plain text, allowed only to this machine. */
    tls: z.boolean({ error: 'must be true or false' }),
    user: z.string({ error: 'must be a string' }).trim().min(1, { message: 'must not be empty' }),
    credential: CREDENTIAL_NAME,
    mailbox: MAILBOX.default('INBOX'),
    archive_mailbox: MAILBOX.optional(),
    trash_mailbox: MAILBOX.optional(),
    drafts_mailbox: MAILBOX.optional(),
    /** password: `credential` is the (app) password. oauth2: it is `{client_id, client_secret, refresh_token}` JSON. */
    auth: z.enum(['password', 'oauth2'], { error: 'must be "password" or "oauth2"' }).default('password'),
    oauth: OAuthSchema.optional(),
  })
  .refine((s) => s.tls || isLoopback(s.host), {
    path: ['tls'],
    message:
      'must be true unless host is 127.0.0.1 or localhost (a password never crosses the network in the clear)',
  })
  .refine((s) => s.auth === 'oauth2' || s.oauth === undefined, {
    path: ['oauth'],
    message: 'is only read with auth: oauth2',
  })
  .refine((s) => s.auth === 'password' || s.oauth !== undefined, {
    path: ['oauth'],
    message: 'is needed with auth: oauth2, e.g. oauth: { provider: google }',
  });

/** Items carried in by the webhook that starts the run (`POST /hooks/<id>`). */
const EventSourceSchema = z.strictObject({
  type: z.literal('event', { error: SOURCE_KINDS }),
  /** The credential holding this workflow's webhook secret; unset: the server's HANDOFF_WEBHOOK_SECRET. */
  secret: CREDENTIAL_NAME.optional(),
});

const SourceSchema = z.discriminatedUnion(
  'type',
  [MaildirSourceSchema, ImapSourceSchema, EventSourceSchema],
  {
    error: (issue) => (issue.code === 'invalid_union' ? SOURCE_KINDS : undefined),
  },
);

/** An IMAP workflow's `source:`. */
export type ImapSourceConfig = z.infer<typeof ImapSourceSchema>;

const ActionSchema = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .regex(SNAKE, { message: 'must be snake_case (lowercase letters, digits, _; starting with a letter)' }),
  irreversible: z.boolean({ error: 'must be true or false' }).default(false),
  description: z.string({ error: 'must be a string' }).optional(),
});

/** A skill's or agent's name (see `handoff skills`, `handoff agents`). */
const LibraryName = z.string({ error: 'must be a string' }).regex(/^[a-z][a-z0-9_-]{0,63}$/, {
  message: 'must be a skill or agent name: lowercase letters, digits, "-" or "_"',
});

/** The name of the agent that runs the batch; no specialist may take it. */
const EXECUTOR_NAME = 'executor';
/** Each specialist is one more agent in the run and one more intent in route_item's schema. */
export const MAX_SPECIALISTS = 8;

/**
 * A specialist the executor may hand items to. Its name is the intent the executor
 * routes by (`route_item(item_id, intent: "billing")`), and the name of its agent.
 */
const SpecialistSchema = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .regex(SNAKE, { message: 'must be snake_case (lowercase letters, digits, _; starting with a letter)' })
    .max(40, { message: 'must be at most 40 characters' }),
  /** What the executor reads to decide which items belong here. */
  description: z.string({ error: 'must be a string' }).trim().min(1, { message: 'must not be empty' }),
  /** What the specialist reads: how to decide the items it is given. */
  instructions: z.string({ error: 'must be a string' }).trim().min(1, { message: 'must not be empty' }),
  /** The declared actions it may propose (skip is always allowed); anything else is asked. Default: all. */
  actions: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be a list' })
    .min(1, { message: 'needs at least one action (or leave it out for all of them)' })
    .optional(),
});

/** A workflow definition, as read from a YAML or JSON file. */
export const WorkflowSchema = z
  .strictObject({
    id: z.string({ error: 'must be a string' }).regex(SLUG, {
      message: 'must be a slug: 1-64 lowercase letters, digits or "-", not starting with "-"',
    }),
    name: z.string({ error: 'must be a string' }).trim().min(1, { message: 'must not be empty' }),
    instructions: z.string({ error: 'must be a string' }).trim().min(1, { message: 'must not be empty' }),
    trigger: TriggerSchema,
    source: SourceSchema,
    actions: z
      .array(ActionSchema, { error: 'must be a list' })
      .min(1, { message: 'needs at least one action' }),
    human_gate: z.strictObject({
      options: z
        .array(z.string({ error: 'must be a string' }), { error: 'must be a list' })
        .min(1, { message: 'needs at least one option' }),
    }),
    confidence_threshold: z
      .number({ error: 'must be a number between 0 and 1' })
      .min(0, { message: 'must be between 0 and 1' })
      .max(1, { message: 'must be between 0 and 1' })
      .optional(),
    /**
     * Registry entries whose read-only tools the executor gets for its reading (say a web
     * fetcher), though no action names them. World-changing tools still only happen as a
     * declared `<entry>__<tool>` action, through the gate.
     */
    integrations: z
      .array(
        z.string({ error: 'must be a string' }).regex(SNAKE, {
          message: 'must be the snake_case name of a registry entry (see `handoff integrations`)',
        }),
        { error: 'must be a list' },
      )
      .optional(),
    /** On: the completer records a Markdown digest of each run (an artifact), item by item. */
    digest: z.boolean({ error: 'must be true or false' }).optional(),
    /** Off when absent: the executor decides every item itself. */
    specialists: z
      .array(SpecialistSchema, { error: 'must be a list' })
      .max(MAX_SPECIALISTS, { message: `at most ${MAX_SPECIALISTS} specialists` })
      .optional(),
    /** Skills (named Markdown instructions) the executor includes, by name: see `handoff skills`. */
    skills: z.array(LibraryName, { error: 'must be a list' }).optional(),
    /** Named agent definitions used as specialists, by name: see `handoff agents`. */
    agents: z.array(LibraryName, { error: 'must be a list' }).optional(),
  })
  .superRefine((w, ctx) => {
    if (w.source.type === 'event' && w.trigger.webhook !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['trigger'],
        message: 'an event source needs trigger: { webhook: true } (its items arrive in the webhook)',
      });
    const seen = new Set<string>();
    w.actions.forEach((a, i) => {
      if (a.name === SKIP) {
        ctx.addIssue({
          code: 'custom',
          path: ['actions', i, 'name'],
          message: '"skip" is always available; do not declare it',
        });
      } else if (seen.has(a.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['actions', i, 'name'],
          message: `duplicate action "${a.name}"`,
        });
      } else if (!sourceCan(w.source.type, a.name) && !INTEGRATION_ACTION.test(a.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['actions', i, 'name'],
          message:
            `the ${w.source.type} source cannot "${a.name}" (it can: ` +
            `${SOURCE_TYPES[w.source.type].actions.join(', ')}; or name an integration's tool as <entry>__<tool>)`,
        });
      }
      seen.add(a.name);
    });
    const options = new Set<string>();
    w.human_gate.options.forEach((o, i) => {
      const path = ['human_gate', 'options', i];
      if (options.has(o)) ctx.addIssue({ code: 'custom', path, message: `duplicate option "${o}"` });
      else if (o !== SKIP && !seen.has(o)) {
        const declared = [...seen].join(', ');
        ctx.addIssue({
          code: 'custom',
          path,
          message: `"${o}" is not a declared action (declared: ${declared}; or skip)`,
        });
      }
      options.add(o);
    });
    const names = new Set<string>();
    (w.specialists ?? []).forEach((sp, i) => {
      if (sp.name === EXECUTOR_NAME || names.has(sp.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['specialists', i, 'name'],
          message:
            sp.name === EXECUTOR_NAME
              ? '"executor" is the agent that routes'
              : `duplicate specialist "${sp.name}"`,
        });
      }
      names.add(sp.name);
      (sp.actions ?? []).forEach((a, j) => {
        if (a !== SKIP && !seen.has(a)) {
          ctx.addIssue({
            code: 'custom',
            path: ['specialists', i, 'actions', j],
            message: `"${a}" is not a declared action (declared: ${[...seen].join(', ')}; or skip)`,
          });
        }
      });
    });
    (w.agents ?? []).forEach((name, i) => {
      if (names.has(name) || name === EXECUTOR_NAME)
        ctx.addIssue({
          code: 'custom',
          path: ['agents', i],
          message: `"${name}" is already a specialist of this workflow (or the executor)`,
        });
      names.add(name);
    });
    if (names.size > MAX_SPECIALISTS)
      ctx.addIssue({
        code: 'custom',
        path: ['agents'],
        message: `at most ${MAX_SPECIALISTS} specialists and agents together`,
      });
  });

/**
 * A specialist of a run: as a workflow file declares it inline, or made from a named agent
 * definition (`agents:`), which also brings its model tier, its tools and its skills.
 */
export type WorkflowSpecialist = z.infer<typeof SpecialistSchema> & {
  /** `fallback`: decides with the fallback model. Default the primary one. */
  model?: 'primary' | 'fallback' | undefined;
  /** Registry entries whose read-only tools it reads with; absent: the workflow's. */
  tools?: string[] | undefined;
  /** Skills it includes by name. */
  skills?: string[] | undefined;
};

/** A validated workflow (its specialists resolved, in a run, from its agents too). */
export type Workflow = Omit<z.infer<typeof WorkflowSchema>, 'specialists'> & {
  specialists?: WorkflowSpecialist[] | undefined;
};
/** One declared action of a workflow. */
export type WorkflowAction = Workflow['actions'][number];

/** Why an EventBridge schedule expression is refused, or null when it is fine. */
function scheduleProblem(schedule: string): string | null {
  const s = schedule.trim();
  const cron = CRON.exec(s);
  if (cron) {
    const fields = (cron[1] ?? '').trim().split(/\s+/);
    if (fields.length !== 6) {
      return `cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${fields.length}`;
    }
    for (const [i, f] of CRON_FIELDS.entries()) {
      const value = fields[i] ?? '';
      if (!f.chars.test(value)) return `cron ${f.name} field "${value}" is not valid`;
    }
    if (fields[2] !== '?' && fields[4] !== '?') {
      return 'cron needs "?" in day-of-month or day-of-week (EventBridge rule), e.g. cron(0 8 * * ? *)';
    }
  } else if (RATE.test(s)) {
    const n = Number(RATE.exec(s)?.[1]);
    if (n < 1) return 'rate must be at least 1';
  } else {
    return 'must be "cron(min hour day-of-month month day-of-week year)" or "rate(N minutes|hours|days)"';
  }
  return toCronExpression(s) === null ? `"${s}" cannot be run by the local scheduler` : null;
}

/** Shifts EventBridge day-of-week numbers (1-7 = SUN-SAT) to standard cron (0-6), or null. */
function shiftDayOfWeek(field: string): string | null {
  const parts = field.split(',').map((item) => {
    const [base = '', step] = item.split('/');
    let bad = false;
    const shifted = base.replace(/(#?)(\d+)/g, (m, hash: string, n: string) => {
      if (hash) return m; // nth occurrence ("6#3"), not a day number
      const d = Number(n);
      if (d < 1 || d > 7) bad = true;
      return String(d - 1);
    });
    if (bad) return null;
    return step === undefined ? shifted : `${shifted}/${step}`;
  });
  return parts.includes(null) ? null : parts.join(',');
}

/** Rewrites `N/step` (EventBridge) as `N-max/step`, which croner accepts. */
function stepRange(field: string, max: number): string {
  return field
    .split(',')
    .map((item) => item.replace(/^(\d+)\/(\d+)$/, `$1-${max}/$2`))
    .join(',');
}

/**
 * Converts an EventBridge `cron(...)` (6 fields) or `rate(...)` expression into a
 * 5-field cron for `croner`: drops the year, maps `?` to `*`, shifts day-of-week
 * numbers to 0-6, writes `N/step` as `N-max/step`. Returns null when it can't be converted (or croner rejects it).
 */
export function toCronExpression(schedule: string): string | null {
  const s = schedule.trim();
  let expr: string | null = null;
  const cron = CRON.exec(s);
  const rate = RATE.exec(s);
  if (cron) {
    const f = (cron[1] ?? '').trim().split(/\s+/);
    if (f.length !== 6) return null;
    const [min = '', hour = '', dom = '', month = '', dow = ''] = f.map((x) => (x === '?' ? '*' : x));
    const day = shiftDayOfWeek(dow);
    if (day === null) return null;
    const fields = [stepRange(min, 59), stepRange(hour, 23), stepRange(dom, 31), stepRange(month, 12)];
    expr = [...fields, stepRange(day, 6)].join(' ');
  } else if (rate) {
    const n = Number(rate[1]);
    const unit = rate[2]?.replace(/s$/, '');
    if (n < 1) return null;
    if (unit === 'minute')
      expr = n < 60 ? `*/${n} * * * *` : n % 60 === 0 ? toCronExpression(`rate(${n / 60} hours)`) : null;
    else if (unit === 'hour')
      expr = n < 24 ? `0 */${n} * * *` : n % 24 === 0 ? toCronExpression(`rate(${n / 24} days)`) : null;
    else if (unit === 'day') expr = n <= 31 ? `0 0 */${n} * *` : null;
  }
  if (expr === null) return null;
  try {
    new Cron(expr, { paused: true });
    return expr;
  } catch {
    return null;
  }
}

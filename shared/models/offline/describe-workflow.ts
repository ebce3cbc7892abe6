/**
 * The offline model's reading of a plain description of a workflow: which template, which
 * schedule, which actions, how careful, which source. Deterministic and small on purpose:
 * it is a stand-in so the demo builds workflows with no network, not a language model.
 */

export interface DescribedWorkflow {
  template: 'inbox-triage' | 'pr-review' | 'competitor-watch' | 'receipts-to-ledger' | 'support-inbox';
  /** EventBridge expression, or null for a manual trigger. */
  schedule: string | null;
  /** Actions named in words, in the order named. */
  actions: string[];
  /** A higher (careful) or lower (bold) threshold than the template's, if asked for. */
  threshold: number | null;
  source:
    | { kind: 'maildir'; path: string | null }
    | { kind: 'imap'; host: string | null; user: string | null }
    | { kind: 'event' }
    | { kind: 'missing' };
  /** Services the person named (slack, notion, ...), to check against the registry. */
  services: string[];
}

const DAYS: Record<string, string> = {
  monday: 'MON',
  tuesday: 'TUE',
  wednesday: 'WED',
  thursday: 'THU',
  friday: 'FRI',
  saturday: 'SAT',
  sunday: 'SUN',
};
const SERVICES = [
  'slack',
  'notion',
  'jira',
  'trello',
  'asana',
  'linear',
  'github',
  'hubspot',
  'salesforce',
  'discord',
  'zendesk',
];

/** The hour (0-23) and minute of "at 8", "at 8:30", "at 7pm", "at noon"; null when there is none. */
function timeOf(text: string): { h: number; m: number } | null {
  if (/\bnoon\b/.test(text)) return { h: 12, m: 0 };
  const at = /\bat (\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?/.exec(text);
  if (!at)
    return /\bmorning\b/.test(text) ? { h: 8, m: 0 } : /\bevening\b/.test(text) ? { h: 18, m: 0 } : null;
  let h = Number(at[1]);
  const m = Number(at[2] ?? 0);
  if (at[3]?.startsWith('p') && h < 12) h += 12;
  if (at[3]?.startsWith('a') && h === 12) h = 0;
  return h <= 23 && m <= 59 ? { h, m } : null;
}

/** "every weekday at 8" → cron(0 8 ? * MON-FRI *); "every 15 minutes" → rate(15 minutes); none → null. */
export function scheduleOf(text: string): string | null {
  const lower = text.toLowerCase();
  const every = /\bevery (\d+) (minute|minutes|hour|hours|day|days)\b/.exec(lower);
  if (every) {
    const n = Number(every[1]);
    const unit = every[2]!.replace(/s$/, '');
    return `rate(${n} ${n === 1 ? unit : `${unit}s`})`;
  }
  if (/\b(every hour|hourly)\b/.test(lower)) return 'rate(1 hour)';
  const time = timeOf(lower);
  const hm = time ?? { h: 8, m: 0 };
  const day = Object.keys(DAYS).find((d) => new RegExp(`\\b(every |on )?${d}s?\\b`).test(lower));
  if (/\b(weekday|weekdays|work ?day|workdays|monday to friday|mon-fri)\b/.test(lower))
    return `cron(${hm.m} ${hm.h} ? * MON-FRI *)`;
  if (day && /\b(every|each|on)\b/.test(lower)) return `cron(${hm.m} ${hm.h} ? * ${DAYS[day]} *)`;
  if (
    /\b(every day|daily|each day|every morning|every evening|each morning|every night)\b/.test(lower) ||
    time
  )
    return `cron(${hm.m} ${hm.h} * * ? *)`;
  return null;
}

/** The actions a description names, as the source's action names. */
export function actionsOf(text: string): string[] {
  const lower = text.toLowerCase();
  const found: [number, string][] = [];
  const add = (re: RegExp, name: string) => {
    const m = re.exec(lower);
    if (m) found.push([m.index, name]);
  };
  add(/\barchiv/, 'archive');
  add(/\b(file|open|create|raise)s? (a |an )?(ticket|issue)|\btickets?\b/, 'file_ticket');
  add(/\b(draft|reply|replies|respond|answer them)\b/, 'draft_reply');
  add(/\b(delete|trash|bin)\b/, 'delete');
  return found.sort((a, b) => a[0] - b[0]).map(([, name]) => name);
}

/** Reads a description; `knownMaildir` is a Maildir path an existing workflow already reads. */
export function describeWorkflow(text: string, knownMaildir: string | null): DescribedWorkflow {
  const lower = text.toLowerCase();
  const template: DescribedWorkflow['template'] = /\bpull requests?\b|\bprs?\b|code review/.test(lower)
    ? 'pr-review'
    : /\bcompetitor/.test(lower)
      ? 'competitor-watch'
      : /\b(ledger|bookkeeping|expenses?)\b/.test(lower)
        ? 'receipts-to-ledger'
        : /\bsupport (inbox|mail|email|queue)|customer support\b/.test(lower)
          ? 'support-inbox'
          : 'inbox-triage';
  const careful =
    /\b(be careful|carefully|cautious|conservative|when in doubt|double[- ]check|be safe|ask me (first|before|more))\b/.test(
      lower,
    );
  const bold = /\b(be bold|don'?t ask (me )?(much|often)|ask less|only ask when)\b/.test(lower);
  const path = /(?:^|\s)(\/[\w./-]+)/.exec(text)?.[1] ?? null;
  const host = /\b(imap\.[a-z0-9.-]+\.[a-z]{2,}|outlook\.office365\.com)\b/.exec(lower)?.[1] ?? null;
  const user = /\b([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,})\b/.exec(lower)?.[1] ?? null;
  const mail =
    /\b(inbox|mailbox|mail|email|e-mail|messages|newsletters?|receipts?|invoices?|maildir|gmail|fastmail|outlook)\b/.test(
      lower,
    );
  let source: DescribedWorkflow['source'];
  if (template === 'pr-review' || /\bwebhook\b/.test(lower)) source = { kind: 'event' };
  else if (host || /\b(imap|gmail|fastmail|outlook)\b/.test(lower)) source = { kind: 'imap', host, user };
  else if (path) source = { kind: 'maildir', path };
  else if (mail && knownMaildir) source = { kind: 'maildir', path: knownMaildir };
  else source = { kind: 'missing' };
  return {
    template,
    schedule: source.kind === 'event' ? null : scheduleOf(text),
    actions: actionsOf(text),
    threshold: careful ? 0.85 : bold ? 0.6 : null,
    source,
    services: SERVICES.filter((s) => new RegExp(`\\b${s}\\b`).test(lower)),
  };
}

const IMAP_HOSTS: Record<string, string> = {
  gmail: 'imap.gmail.com',
  fastmail: 'imap.fastmail.com',
  outlook: 'outlook.office365.com',
};

/** The IMAP host a description implies by provider name ("my gmail"), if any. */
export function providerHost(text: string): string | null {
  const lower = text.toLowerCase();
  const name = Object.keys(IMAP_HOSTS).find((p) => lower.includes(p));
  return name ? IMAP_HOSTS[name]! : null;
}

const DAY_NAMES: Record<string, string> = {
  MON: 'Monday',
  TUE: 'Tuesday',
  WED: 'Wednesday',
  THU: 'Thursday',
  FRI: 'Friday',
  SAT: 'Saturday',
  SUN: 'Sunday',
};

/**
 * A schedule as a person says it: `cron(0 8 ? * MON-FRI *)` → "every weekday at 08:00 (UTC)".
 * Cron hours are read in the profile's time zone (see schedules.ts): pass it to name it.
 */
export function describeSchedule(schedule: string, timeZone = 'UTC'): string {
  const rate = /^rate\((\d+) (\w+)\)$/.exec(schedule);
  if (rate) return rate[1] === '1' ? `every ${rate[2]!.replace(/s$/, '')}` : `every ${rate[1]} ${rate[2]}`;
  const cron = /^cron\((\d+) (\d+) (\S+) \* (\S+) \*\)$/.exec(schedule);
  if (!cron) return `on ${schedule}`;
  const at = `at ${cron[2]!.padStart(2, '0')}:${cron[1]!.padStart(2, '0')} (${timeZone})`;
  const [dom, dow] = [cron[3]!, cron[4]!];
  if (dow === 'MON-FRI') return `every weekday ${at}`;
  if (DAY_NAMES[dow]) return `every ${DAY_NAMES[dow]} ${at}`;
  if (dom === '*' && dow === '?') return `every day ${at}`;
  return `on ${schedule}`;
}

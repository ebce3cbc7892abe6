/**
 * The offline model's reading of a change to a drafted workflow ("make it 9am instead of 8",
 * "only the Fastmail inbox", "also ask about invoices"): the draft with only the named part
 * changed, or null when the request names no part it knows. Deterministic and small: a
 * stand-in for a language model, so refinements work with no network.
 */
import { actionsOf, providerHost } from './describe-workflow.ts';

type Json = Record<string, unknown>;

const DAYS: Record<string, string> = {
  monday: 'MON',
  tuesday: 'TUE',
  wednesday: 'WED',
  thursday: 'THU',
  friday: 'FRI',
  saturday: 'SAT',
  sunday: 'SUN',
};

/** "show me the workflow you drafted", "what does the draft look like". */
export function asksToShowDraft(request: string): boolean {
  const lower = request.toLowerCase();
  return (
    /\b(show|see|display|print|read|what does|what's in|what is in|look at)\b/.test(lower) &&
    /\b(draft|drafted|the workflow|this workflow|it so far|you (made|built|wrote))\b/.test(lower) &&
    !/\b[a-z0-9]+(?:-[a-z0-9]+)+\b/.test(lower.replace(/\b(e-?mail|set-?up|so-far)\b/g, ''))
  );
}

/** "save it", "save the draft"; with a draft and no card waiting, "yes" asks for the card again. */
export function asksToSaveDraft(request: string): boolean {
  return (
    /^\s*(please\s+)?(save|keep)( it| the (draft|workflow))?( now)?[\s.!]*$/i.test(request) ||
    /^\s*(yes|yep|yeah|ok|okay|sure|go ahead|do it)[\s.!]*$/i.test(request)
  );
}

/** The draft with the change the request names, or null when it names none. */
export function refineDraft(draft: Json, request: string): Json | null {
  const text = request.trim();
  // What it is no longer ("instead of 8", "rather than Gmail") is not part of the change.
  const lower = text.toLowerCase().replace(/\b(instead of|rather than|not)\b[^,.;]*/g, ' ');
  let next: Json = { ...draft };
  let touched = false;
  for (const change of [schedule, source, asks, alsoActs, never, threshold, name]) {
    const changed = change(next, lower, text);
    if (changed) {
      next = changed;
      touched = true;
    }
  }
  return touched ? next : null;
}

function schedule(draft: Json, lower: string): Json | null {
  if (/\b(manually|only when i (run|say)|no schedule)\b/.test(lower))
    return { ...draft, trigger: { manual: true } };
  const every = /\bevery (\d+) (minute|minutes|hour|hours)\b/.exec(lower);
  if (every) {
    const n = Number(every[1]);
    const unit = every[2]!.replace(/s$/, '');
    return { ...draft, trigger: { schedule: `rate(${n} ${n === 1 ? unit : `${unit}s`})` } };
  }
  const time = timeOf(lower);
  const days = daysOf(lower);
  if (!time && !days) return null;
  const current = ((draft.trigger as Json | undefined)?.schedule as string | undefined) ?? '';
  const cron = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(current.trim());
  const [m, h] = time ? [String(time.m), String(time.h)] : cron ? [cron[1]!, cron[2]!] : ['0', '8'];
  const [dom, dow] = days ?? (cron ? [cron[3]!, cron[5]!] : ['*', '?']);
  return { ...draft, trigger: { schedule: `cron(${m} ${h} ${dom} * ${dow} *)` } };
}

/** "9am", "at 9", "at 7:30pm", "noon"; null when none. */
function timeOf(lower: string): { h: number; m: number } | null {
  if (/\bnoon\b/.test(lower)) return { h: 12, m: 0 };
  const at =
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|o'?clock)/.exec(lower) ??
    /\bat (\d{1,2})(?::(\d{2}))?\b()/.exec(lower);
  if (!at) return null;
  let h = Number(at[1]);
  const m = Number(at[2] ?? 0);
  if (at[3]?.startsWith('p') && h < 12) h += 12;
  if (at[3]?.startsWith('a') && h === 12) h = 0;
  return h <= 23 && m <= 59 ? { h, m } : null;
}

/** [day-of-month, day-of-week] of "weekdays", "every day", "on Mondays"; null when none. */
function daysOf(lower: string): [string, string] | null {
  if (/\b(weekdays?|work ?days?|monday to friday|mon-fri)\b/.test(lower)) return ['?', 'MON-FRI'];
  if (/\b(every day|daily|each day|weekends too)\b/.test(lower)) return ['*', '?'];
  const day = Object.keys(DAYS).find((d) => new RegExp(`\\b${d}s?\\b`).test(lower));
  return day ? ['?', DAYS[day]!] : null;
}

function source(draft: Json, lower: string, text: string): Json | null {
  const current = (draft.source ?? {}) as Json;
  if (current.type === 'event') return null;
  const path = /(?:^|\s)(\/[\w./-]+)/.exec(text)?.[1];
  if (path) return { ...draft, source: { type: 'maildir', path } };
  const host =
    /\b(imap\.[a-z0-9.-]+\.[a-z]{2,}|outlook\.office365\.com)\b/.exec(lower)?.[1] ?? providerHost(lower);
  const user = /\b([a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,})\b/.exec(lower)?.[1];
  const folder =
    /\b(?:the|my) ([\w -]{1,40}?) (?:folder|mailbox)\b/i.exec(text)?.[1]?.trim() ?? // as written: IMAP names are case-sensitive
    (/\binbox\b/.test(lower) ? 'INBOX' : undefined);
  const mailbox = folder && /^(inbox|the inbox|my inbox)$/.test(folder.toLowerCase()) ? 'INBOX' : folder;
  const base = current.type === 'imap' ? current : null;
  if (!host && !user && !(base && mailbox)) return null;
  const provider = host?.replace(/^imap\./, '') ?? null;
  return {
    ...draft,
    source: {
      type: 'imap',
      port: 993,
      tls: true,
      credential: 'MAIL_PASSWORD',
      mailbox: 'INBOX',
      ...(base ?? {}),
      host: host ?? base?.host ?? 'imap.example.com',
      user: user ?? base?.user ?? `you@${provider ?? 'example.com'}`,
      ...(mailbox ? { mailbox } : {}),
    },
  };
}

/** "also ask me about invoices": a line of instructions that makes the model ask. */
function asks(draft: Json, lower: string): Json | null {
  const what = /\bask (?:me )?(?:about|before (?:acting on|touching|handling)?)\s*(.+?)[.!]*$/.exec(
    lower,
  )?.[1];
  if (!what) return null;
  return addInstruction(draft, `Ask me about ${what.trim()}; never act on them alone.`);
}

/** "also archive receipts", "and file tickets for bug reports": the action, and a line saying when. */
function alsoActs(draft: Json, lower: string, text: string): Json | null {
  const m = /^\s*(?:and |please )?also\s+(.+)$/i.exec(text);
  if (!m || /\bask\b/.test(lower)) return null;
  const wanted = actionsOf(m[1]!);
  if (wanted.length === 0) return null;
  const sentence = m[1]!.trim().replace(/[.!]*$/, '.');
  return withActions(addInstruction(draft, capitalise(sentence)), wanted);
}

/** "never delete anything", "don't file tickets": the action is taken away. */
function never(draft: Json, lower: string): Json | null {
  const m = /\b(?:never|don'?t|do not|stop)\s+(.+)$/.exec(lower);
  if (!m) return null;
  const gone = actionsOf(m[1]!);
  if (gone.length === 0) return null;
  const actions = ((draft.actions ?? []) as Json[]).filter((a) => !gone.includes(String(a.name)));
  if (actions.length === 0) return null;
  const options = (((draft.human_gate as Json | undefined)?.options ?? []) as string[]).filter(
    (o) => !gone.includes(o),
  );
  return {
    ...addInstruction(draft, capitalise(`${m[0].trim().replace(/[.!]*$/, '.')}`)),
    actions,
    human_gate: { options: options.length > 0 ? options : ['skip'] },
  };
}

function threshold(draft: Json, lower: string): Json | null {
  const pct =
    /\b(?:threshold|confidence)\D{0,12}(\d{1,3})\s*%/.exec(lower) ?? /\b(\d{1,3})\s*% sure\b/.exec(lower);
  const dec = /\b(?:threshold|confidence)\D{0,12}(0?\.\d+)\b/.exec(lower);
  const value = pct ? Number(pct[1]) / 100 : dec ? Number(dec[1]) : null;
  if (value !== null && value > 0 && value <= 1) return { ...draft, confidence_threshold: value };
  if (/\b(more careful|be careful|carefully|cautious|ask (me )?more)\b/.test(lower))
    return { ...draft, confidence_threshold: 0.85 };
  if (/\b(be bold|ask (me )?less|less careful|don'?t ask (me )?(much|so much|often))\b/.test(lower))
    return { ...draft, confidence_threshold: 0.6 };
  return null;
}

function name(draft: Json, _lower: string, text: string): Json | null {
  const m = /\b(?:call|name|rename) it\s+["“']?(.+?)["”']?[.!]*$/i.exec(text);
  return m ? { ...draft, name: m[1]!.trim() } : null;
}

function addInstruction(draft: Json, line: string): Json {
  const lines = String(draft.instructions ?? '')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (lines.some((l) => l.trim().toLowerCase() === line.toLowerCase())) return draft;
  // The catch-all line ("When a message fits none of this, skip it.") stays last.
  const last = lines.at(-1) ?? '';
  const keepLast = /fits none of this/i.test(last);
  const body = keepLast ? lines.slice(0, -1) : lines;
  return { ...draft, instructions: [...body, line, ...(keepLast ? [last] : [])].join('\n') };
}

function withActions(draft: Json, wanted: string[]): Json {
  const actions = [...((draft.actions ?? []) as Json[])];
  const options = [...(((draft.human_gate as Json | undefined)?.options ?? []) as string[])];
  for (const name of wanted) {
    if (actions.some((a) => a.name === name)) continue;
    actions.push(name === 'delete' ? { name, irreversible: true } : { name });
    options.splice(Math.max(0, options.indexOf('skip')), 0, name);
  }
  return { ...draft, actions, human_gate: { options } };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

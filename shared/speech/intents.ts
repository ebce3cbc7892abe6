/**
 * Voice intents: a small deterministic parser from a transcript to what the person
 * meant for the decision in front of them. It acts only on a whole, confident match:
 * a transcript that is not one of the phrases (give or take "please") is `none`, never
 * the nearest command.
 */

/** What a transcript asks for. `answer` carries an option of the decision. */
export type VoiceIntent =
  | { kind: 'answer'; action: string; note: string | null; irreversible: boolean }
  | { kind: 'why' | 'next' | 'stop' | 'yes' | 'no' }
  | { kind: 'none' };

export interface IntentContext {
  /** The actions the person may choose (the decision's options, `skip`, `approve_suggested`). */
  options: readonly string[];
  /** The options that cannot be undone: they need a spoken "yes" before anything happens. */
  irreversible: ReadonlySet<string>;
  /** The agent's suggestion, so "do what you suggested" can be confirmed like the action itself. */
  suggested?: string;
}

/** Phrases for the built-in actions; any other option is spoken as its name ("file ticket"). */
const SYNONYMS: Record<string, string[]> = {
  archive: ['archive it', 'archive', 'archive this', 'archive that'],
  delete: ['delete it', 'delete', 'delete this', 'trash it', 'bin it'],
  file_ticket: [
    'file a ticket',
    'file ticket',
    'open a ticket',
    'make a ticket',
    'create a ticket',
    'ticket it',
  ],
  draft_reply: ['draft a reply', 'draft reply', 'write a reply', 'reply to it', 'draft an answer'],
  skip: ['leave it', 'leave it alone', 'skip', 'skip it', 'ignore it', 'do nothing'],
  approve_suggested: [
    'do what you suggested',
    'go with your suggestion',
    'approve the suggestion',
    'as you suggested',
  ],
};

const CONTROL: Record<'why' | 'next' | 'stop' | 'yes' | 'no', string[]> = {
  why: ['why', 'why is that', 'tell me why', 'what is the reasoning', 'repeat'],
  next: ['next', 'next one', 'next question'],
  stop: ['stop', 'stop listening', 'that is all', 'cancel'],
  yes: ['yes', 'yes do it', 'confirm', 'yes confirm', 'i am sure'],
  no: ['no', 'no do not', 'do not'],
};

/** Words that may end a command without changing it. */
const POLITE = new Set(['please', 'thanks', 'thank you', 'now']);
/** What may join a command to its note: "archive it, newsletters can go", "leave it because …". */
const NOTE_JOINERS = ['because', 'since', 'note', 'as'];

/** Lower case, apostrophes dropped ("don't" → "dont" → "do not"), punctuation to spaces except commas. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/\bdon'?t\b/g, 'do not')
    .replace(/\bthat'?s\b/g, 'that is')
    .replace(/\bwhat'?s\b/g, 'what is')
    .replace(/\bi'?m\b/g, 'i am')
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9,\s]/g, ' ')
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,\s]+$/, '');
}

/** The phrases for one option. */
export function phrasesFor(option: string): string[] {
  return SYNONYMS[option] ?? [option.replace(/__/g, ' ').replace(/_/g, ' ')];
}

/** `rest` after a command: empty or polite → no note; a joined clause → the note; else not a match. */
function trailing(rest: string): { note: string | null } | null {
  const text = rest.replace(/^,\s*/, '').trim();
  if (text === '' || POLITE.has(text)) return { note: null };
  if (rest.startsWith(',')) return { note: text };
  const [first, ...more] = text.split(' ');
  if (first && NOTE_JOINERS.includes(first) && more.length > 0) return { note: more.join(' ') };
  return null;
}

/** The longest phrase the transcript starts with (whole words), and what follows it. */
function longestPrefix(text: string, phrases: readonly string[]): { phrase: string; rest: string } | null {
  let best: { phrase: string; rest: string } | null = null;
  for (const phrase of phrases) {
    if (text !== phrase && !text.startsWith(`${phrase} `) && !text.startsWith(`${phrase},`)) continue;
    if (!best || phrase.length > best.phrase.length) best = { phrase, rest: text.slice(phrase.length) };
  }
  return best;
}

/**
 * Reads one transcript as an intent for the current decision. Options win over the
 * controls; a note is taken only after a comma or "because"/"since". Anything else is `none`.
 */
export function parseIntent(transcript: string, context: IntentContext): VoiceIntent {
  const text = normalise(transcript);
  if (text === '') return { kind: 'none' };
  let best: { action: string; phrase: string; note: string | null } | null = null;
  for (const action of context.options) {
    const match = longestPrefix(text, phrasesFor(action));
    const tail = match ? trailing(match.rest) : null;
    if (match && tail && (!best || match.phrase.length > best.phrase.length))
      best = { action, phrase: match.phrase, note: tail.note };
  }
  if (best) {
    const effective = best.action === 'approve_suggested' ? (context.suggested ?? best.action) : best.action;
    return {
      kind: 'answer',
      action: best.action,
      note: best.note,
      irreversible: context.irreversible.has(best.action) || context.irreversible.has(effective),
    };
  }
  const plain = text.replace(/,/g, '');
  for (const [kind, phrases] of Object.entries(CONTROL) as [keyof typeof CONTROL, string[]][]) {
    const match = longestPrefix(plain, phrases);
    if (match && trailing(match.rest)?.note === null) return { kind };
  }
  return { kind: 'none' };
}

/** Every phrase the Talk vocabulary holds for these options (the local recogniser's grammar). */
export function vocabulary(options: readonly string[]): string[] {
  const phrases = new Set<string>();
  for (const option of options) for (const phrase of phrasesFor(option)) phrases.add(phrase);
  for (const list of Object.values(CONTROL)) for (const phrase of list) phrases.add(phrase);
  return [...phrases];
}

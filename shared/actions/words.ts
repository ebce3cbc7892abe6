/**
 * The words an action carries (a reply's body, a ticket's title and body): written for the
 * item before anyone decides, shown where the person decides, editable there, and carried
 * out exactly as approved. A note is never words: it teaches the next run, it is never mail.
 */
import { InvalidInputError } from '../errors/index.ts';
import type { SourceItem } from '../sources/source.ts';
import { offlineReply } from '../models/offline/reply.ts';

export { WordsSchema, type Words } from '../records/words.ts';
import type { Words } from '../records/words.ts';

/** What a person changed of an action's words when answering (null: as drafted). */
export interface WordEdits {
  body?: string | null | undefined;
  title?: string | null | undefined;
}

/** The actions that carry words, and which parts: a reply has a body, a ticket a title and a body. */
const WORD_ACTIONS: Record<string, { title: boolean }> = {
  draft_reply: { title: false },
  file_ticket: { title: true },
};

/**
 * Whether an action may carry words a person should see before they go anywhere: a reply, a
 * ticket, or an integration's `<entry>__<tool>` (its source says which words, if any).
 */
export function carriesWords(action: string): boolean {
  return action in WORD_ACTIONS || action.includes('__');
}

/** The words of `action` among `drafts`, if any. */
export function wordsFor(drafts: readonly Words[] | undefined, action: string): Words | undefined {
  return drafts?.find((d) => d.action === action);
}

/** Text a person typed: line endings as \n (a browser's form sends \r\n), no trailing blank lines. */
export function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
}

/**
 * The words to carry out for `action`: the drafted ones with the person's edits applied.
 * An edit for an action that carries no words, an empty body or title is refused.
 */
export function approvedWords(
  action: string,
  drafted: Words | undefined,
  edits: WordEdits,
): Words | undefined {
  const body = edits.body === undefined || edits.body === null ? null : normalizeText(edits.body);
  const title =
    edits.title === undefined || edits.title === null ? null : edits.title.replace(/\s+/g, ' ').trim();
  if (body === null && title === null) return drafted;
  const shape = WORD_ACTIONS[action] ?? (drafted ? { title: drafted.title !== null } : undefined);
  if (!shape)
    throw new InvalidInputError(
      `"${action}" carries no words: a body or title goes with ${Object.keys(WORD_ACTIONS).join(' or ')}`,
    );
  if (body === '') throw new InvalidInputError('the body must not be empty');
  if (title !== null && !shape.title)
    throw new InvalidInputError(`"${action}" has no title; give a body only`);
  if (title === '') throw new InvalidInputError('the title must not be empty');
  return {
    action,
    title: shape.title ? (title ?? drafted?.title ?? null) : null,
    body: body ?? drafted?.body ?? '',
    by: 'person',
  };
}

/**
 * The words the person approved for `action` once the answer is recorded: the draft they
 * saw with their edits (already checked when the answer was taken; an edit that no longer
 * reads is never mail, so the draft stands).
 */
export function wordsAsApproved(
  action: string,
  drafts: readonly Words[] | undefined,
  edits: WordEdits,
): Words | undefined {
  const drafted = wordsFor(drafts, action);
  try {
    return approvedWords(action, drafted, edits);
  } catch {
    return drafted;
  }
}

/** A ticket's words from its item: the subject, and who wrote it with the start of the text. */
export function ticketWords(item: Pick<SourceItem, 'subject' | 'sender' | 'text'>): Words {
  return {
    action: 'file_ticket',
    title: item.subject.trim() || '(no subject)',
    body: `From: ${item.sender.address}\n\n${item.text.slice(0, 4000)}`,
    by: 'template',
  };
}

/**
 * The words of an action when no model is at hand to write them: the offline reply (marked
 * as such) or the ticket from the item. Never the note.
 */
export function wordsWithoutModel(item: SourceItem, action: string): Words | null {
  if (action === 'file_ticket') return ticketWords(item);
  if (action !== 'draft_reply') return null;
  const facts = {
    sender_name: item.sender.name,
    sender: item.sender.address,
    subject: item.subject,
    text: item.text,
  };
  return { action, title: null, body: offlineReply({ ...facts, me: null }), by: 'offline' };
}

/**
 * A list's cursor, opaque to callers: which list (and which part of it) it belongs to, and
 * where the next page starts in the store's own terms. A cursor from another list, or one that
 * was never given, is refused in one line.
 */
import { InvalidCursorError } from '../errors/index.ts';

/** The cursor of `list` that resumes at the store's `at`. */
export function encodeCursor(list: string, at: string): string {
  return Buffer.from(`${list}\n${at}`).toString('base64url');
}

/** Where `cursor` resumes `list` (one of `lists`, the part it names), or an InvalidCursorError. */
export function decodeCursor<L extends string>(lists: readonly L[], cursor: string): { list: L; at: string } {
  const text = Buffer.from(cursor, 'base64url').toString();
  const cut = text.indexOf('\n');
  const list = lists.find((l) => l === text.slice(0, cut));
  if (cut < 0 || list === undefined || Buffer.from(text).toString('base64url') !== cursor)
    throw new InvalidCursorError('cursor: not one this list gave; start again without it');
  return { list, at: text.slice(cut + 1) };
}

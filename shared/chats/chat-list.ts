/**
 * The chat list, a page at a time, most recently used first, read by key: the by-time index
 * by `updated_at` (a chat's entry moves with each use), reading what the page shows plus one.
 * Chats written by an earlier build are not in that index until `handoff store migrate` (its
 * chat-times step) writes them again; until then the list reads them all, as it did.
 */
import type { ListPage, PageAsk } from '../runs/list-pages.ts';
import { backfillTimes, markerOf, unlessIndexed, type TimeBackfill } from '../runs/time-backfill.ts';
import { decodeCursor, encodeCursor } from '../store/list-cursor.ts';
import { parseRecord } from '../store/records.ts';
import { listNewest, newestOf, type JsonRecord, type Store } from '../store/store.ts';
import { ChatSchema } from './chat-records.ts';
import type { ChatSummary } from './chat-repository.ts';

const CHAT_TIMES: TimeBackfill = { collection: 'chats', step: 'chat-times' };

/** The marker that says every chat of the workspace is in the by-time index (in `settings`). */
export const CHAT_TIMES_MIGRATED_ID = markerOf(CHAT_TIMES);

/** A page of chats, most recently used first. A cursor from another list is refused (InvalidCursorError). */
export async function pageOfChats(store: Store, ask: PageAsk): Promise<ListPage<ChatSummary>> {
  const at = ask.cursor === undefined ? undefined : decodeCursor(['chats', 'chats-listed'], ask.cursor);
  const listed =
    at?.list === 'chats-listed' ? await store.list('chats') : await unlessIndexed(store, CHAT_TIMES);
  const request = { limit: ask.limit, cursor: at?.at ?? null };
  if (listed !== null) {
    // Written before the index and not migrated yet: every chat read, as before.
    const page = newestOf(listed, 'chats', request);
    return { items: page.items.map(summaryOf), next_cursor: cursorOf('chats-listed', page.next_cursor) };
  }
  const page = await listNewest(store, 'chats', request);
  return { items: page.items.map(summaryOf), next_cursor: cursorOf('chats', page.next_cursor) };
}

/**
 * The chat-times step of `handoff store migrate` (runs/time-backfill.ts): every chat written
 * again into the by-time index, then the marker. Returns how many (0 when already done).
 */
export async function migrateChatTimes(store: Store): Promise<{ already_done: boolean; chats: number }> {
  const done = await backfillTimes(store, CHAT_TIMES);
  return { already_done: done.already_done, chats: done.written };
}

const cursorOf = (list: string, at: string | null) => (at === null ? null : encodeCursor(list, at));

function summaryOf(record: JsonRecord): ChatSummary {
  const chat = parseRecord(ChatSchema, 'chats', record);
  return { chat_id: chat.id, title: chat.title, turns: chat.turn_count, updated_at: chat.updated_at };
}

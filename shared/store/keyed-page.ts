/**
 * One page of a keyed read, filtered: the store's pages (a prefix or by-time read, each
 * reading what it returns plus one) walked from the cursor until the page is full and one
 * more record is known to follow. A filter that keeps most records reads little more than it
 * shows; nothing ever reads a whole collection.
 */
import type { JsonRecord, Page } from './store.ts';

/** A page of the store's keyed read: at most `limit` records after `cursor` (null: from the start). */
export type StorePager = (page: { limit: number; cursor: string | null }) => Promise<Page>;

/**
 * At most `limit` records `keep` keeps, from `cursor` on, and the store cursor just after the
 * last one shown (null when no kept record follows).
 */
export async function keyedPage(
  read: StorePager,
  limit: number,
  cursor: string | null,
  keep: (record: JsonRecord) => boolean = () => true,
): Promise<Page> {
  const shown: JsonRecord[] = [];
  // Where the last shown record sits: the store page it came from (its start and cursor) and its index.
  let last: { start: string | null; page: Page; index: number } | undefined;
  let start = cursor;
  for (;;) {
    const page = await read({ limit: limit + 1, cursor: start });
    for (const [index, record] of page.items.entries()) {
      if (!keep(record)) continue;
      if (shown.length === limit) return { items: shown, next_cursor: await after(read, last) };
      shown.push(record);
      last = { start, page, index };
    }
    if (page.next_cursor === null) return { items: shown, next_cursor: null };
    start = page.next_cursor;
  }
}

/** The store cursor just after the last shown record (a record is known to follow it). */
async function after(
  read: StorePager,
  last: { start: string | null; page: Page; index: number } | undefined,
): Promise<string | null> {
  if (last === undefined) return null;
  const { start, page, index } = last;
  if (index === page.items.length - 1 && page.next_cursor !== null) return page.next_cursor;
  // The page ended mid-way through a store page: read that page again up to the record, for its key.
  return (await read({ limit: index + 1, cursor: start })).next_cursor;
}

/**
 * Lists paged with a cursor, on both stores: a page by id prefix (either way round) and the
 * newest of a time-indexed collection, each reading what it shows plus one, and the pages
 * together giving every record once.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { commitAll, listNewest, listPage, type PageRequest, type Store } from '../../shared/store/store.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import type { SentRequest } from '../support/dynamodb-requests.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { watchRequests } from '../support/store-spy.ts';

/** Every page, following the cursors; the records' ids in the order the pages gave them. */
async function allPages(read: (cursor: string | null) => ReturnType<typeof listPage>): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page = await read(cursor);
    pages.push(page.items.map((r) => r.id));
    cursor = page.next_cursor;
  } while (cursor !== null && pages.length < 20);
  return pages;
}

describe.each(['JSON files', 'dynalite'])('pages with a cursor on %s', (backend) => {
  let store: Store;
  let dir: string;
  let client: DynamoDBClient | undefined;
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let sent: SentRequest[] = [];
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-pages-'));
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      sent = watchRequests(client);
      const table = `handoff-pages-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    } else store = new JsonFileStore(dir);
    // 23 artifacts of run a, 5 of run b; 12 questions settled an hour apart, 2 still pending.
    const artifacts = [
      ...Array.from({ length: 23 }, (_, i) => ({ id: `run_a.${String(i).padStart(2, '0')}`, n: i })),
      ...Array.from({ length: 5 }, (_, i) => ({ id: `run_b.${i}`, n: i })),
      // Just outside the prefix `run_a.` on either side: DynamoDB reads the range up to `run_a/`.
      { id: 'run_a-', n: -1 },
      { id: 'run_a/', n: -1 },
    ];
    const decisions = Array.from({ length: 14 }, (_, i) =>
      answeredDecision({
        action: 'archive',
        id: `dec_${String(i).padStart(2, '0')}`,
        ...(i >= 12
          ? { status: 'pending' as const, answer: null }
          : {
              answer: {
                action: 'archive',
                note: null,
                by: 'human' as const,
                at: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
              },
            }),
      }),
    );
    const results = await commitAll(store, [
      ...artifacts.map((record) => ({ kind: 'put' as const, collection: 'artifacts' as const, record })),
      ...decisions.map((record) => ({ kind: 'put' as const, collection: 'decisions' as const, record })),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
    client?.destroy();
    await dynalite?.stop();
  });

  it('pages a prefix in id order, each id once, and stops at the prefix', async () => {
    const page = (cursor: string | null, extra: Partial<PageRequest> = {}) =>
      listPage(store, 'artifacts', 'run_a.', { limit: 10, cursor, ...extra });
    const pages = await allPages((cursor) => page(cursor));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(pages.flat()).toEqual(Array.from({ length: 23 }, (_, i) => `run_a.${String(i).padStart(2, '0')}`));
    const down = await allPages((cursor) => page(cursor, { descending: true }));
    expect(down.flat()).toEqual(pages.flat().reverse());
  });

  // On DynamoDB, from the requests (JSON files read one file per record shown, by construction).
  if (backend === 'dynalite')
    it('reads what a page shows plus one', async () => {
      sent.splice(0);
      await listPage(store, 'artifacts', 'run_a.', { limit: 10 });
      expect(sent).toEqual([expect.objectContaining({ command: 'QueryCommand', prefix: true, limit: 11 })]);
      sent.splice(0);
      await listNewest(store, 'decisions', { limit: 5 });
      expect(sent).toEqual([expect.objectContaining({ command: 'QueryCommand', limit: 6 })]);
    });

  it('gives the settled questions newest first, the pending ones never', async () => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await listNewest(store, 'decisions', { limit: 5, cursor });
      pages.push(page.items.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat()).toEqual(
      Array.from({ length: 12 }, (_, i) => `dec_${String(11 - i).padStart(2, '0')}`),
    );
  });
});

/**
 * Acting on many IMAP messages at once against a real Dovecot: one MOVE per folder, one
 * MULTIAPPEND for every draft, the messages moved away meanwhile reported gone and left alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Credentials } from '../../../shared/credentials/credentials.ts';
import { isError } from '../../../shared/errors/index.ts';
import { ImapSource } from '../../../shared/sources/imap/imap-source.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import type { ActRequest, SourceItem } from '../../../shared/sources/source.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';
import { startDovecot, type Dovecot } from '../../support/dovecot.ts';
import { imapConfig, imapCredentials, messageIds } from '../../support/imap-fixture.ts';

let dovecot: Dovecot;
let dir: string;
let store: JsonFileStore;
let credentials: Credentials;

beforeAll(async () => {
  dovecot = await startDovecot();
  dir = await mkdtemp(join(tmpdir(), 'handoff-imap-batch-'));
  store = new JsonFileStore(join(dir, 'state'));
  credentials = await imapCredentials(store, join(dir, 'state'));
  await dovecot.append(
    Array.from({ length: 40 }, (_, i) =>
      renderMessage({
        from: `sender${i}@example.org`,
        to: 'me@example.com',
        subject: `Message ${i}`,
        body: `Body ${i}\n`,
        date: new Date('2025-03-10T09:00:00Z'),
        messageId: `<b${i}@example.org>`,
      }),
    ),
  );
});
afterAll(async () => {
  await dovecot.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Moves messages to Trash from another session, as the person's mail app would. */
async function moveAwayElsewhere(ids: readonly string[]): Promise<void> {
  const client = await dovecot.connect();
  await client.mailboxOpen('INBOX');
  for (const id of ids) {
    const uids = await client.search({ header: { 'message-id': id } }, { uid: true });
    if (uids && uids.length > 0) await client.messageMove(uids.join(','), 'Trash', { uid: true });
  }
  await client.logout();
}

it('acts on 40 messages in a handful of round trips, and a message moved away meanwhile is gone, untouched', async () => {
  const commands: string[] = [];
  const source = new ImapSource(imapConfig(dovecot), credentials, null, {
    onCommand: (c) => {
      if (/^[A-Z0-9]+ [A-Z]/.test(c)) commands.push(c.replace(/^\S+ /, '').split(' ').slice(0, 2).join(' '));
    },
  });
  try {
    const reads = await source.readMany(await source.listRefs());
    const items = reads.flatMap((r) => (r.ok ? [r.item] : []));
    expect(items).toHaveLength(40);
    const context = { store, workflowId: 'wf', runId: 'run_1', note: null, reasoning: null };
    const actionOf = (i: number) => (i < 22 ? 'archive' : i < 32 ? 'delete' : 'draft_reply');
    const requests: ActRequest[] = items.map((item: SourceItem, i) => ({
      action: actionOf(i),
      item,
      context,
    }));
    await moveAwayElsewhere(['<b0@example.org>', '<b39@example.org>']); // one to archive, one to answer

    commands.length = 0;
    const results = await source.performMany(requests);

    expect(commands.filter((c) => !/^(LIST|LSUB)/.test(c))).toEqual([
      'NOOP',
      'UID FETCH',
      'UID MOVE',
      'UID MOVE',
      'APPEND "Drafts"', // every draft in one MULTIAPPEND
    ]);
    const failed = results.flatMap((r, i) =>
      r.ok ? [] : [[items[i]!.id, isError(r.error) ? r.error.message : '']],
    );
    expect(failed).toEqual([
      ['<b0@example.org>', expect.stringMatching(/^gone: <b0@example\.org> is no longer in INBOX/)],
      ['<b39@example.org>', expect.stringMatching(/^gone: <b39@example\.org> is no longer in INBOX/)],
    ]);
    expect((await messageIds(dovecot, 'Archive')).sort()).toEqual(
      items
        .slice(1, 22)
        .map((i) => i.id)
        .sort(),
    );
    expect(await messageIds(dovecot, 'Trash')).toHaveLength(10 + 2); // ten deleted, two moved by the person
    const drafts = await dovecot.messages('Drafts');
    expect(drafts).toHaveLength(7); // <b39> was gone: no draft for it
    for (const [k, raw] of drafts.entries())
      expect(raw).toMatch(new RegExp(`^In-Reply-To: <b${32 + k}@example\\.org>`, 'm'));
    const flags = await dovecot.connect();
    try {
      await flags.mailboxOpen('Drafts');
      const listed = await flags.fetchAll('1:*', { flags: true });
      for (const m of listed) expect([...(m.flags ?? [])].sort()).toEqual(['\\Draft', '\\Seen']);
    } finally {
      await flags.logout();
    }
  } finally {
    await source.close();
  }
});

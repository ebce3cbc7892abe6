/**
 * One contract for every item source: list, read, act, gone-in-between, idempotency.
 * Run against a Maildir and against a real Dovecot over IMAP.
 */
import { mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { renderMessage, writeMaildir, type MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { MaildirSource } from '../../shared/sources/maildir/maildir-source.ts';
import { ImapSource } from '../../shared/sources/imap/imap-source.ts';
import type { ActionContext, ItemSource, SourceItem } from '../../shared/sources/source.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import { startDovecot, type Dovecot } from '../support/dovecot.ts';
import { imapConfig, imapCredentials, messageIds } from '../support/imap-fixture.ts';

/** What the contract needs of a backend: a source over seeded messages, and a look behind its back. */
interface Backend {
  source: ItemSource;
  /** A second source over the same messages, as a later process (after a pause) opens it. */
  reopen(): ItemSource;
  store: Store;
  /** Message-IDs in a folder: 'inbox', 'archive', 'trash', 'drafts'. */
  ids(folder: 'inbox' | 'archive' | 'trash' | 'drafts'): Promise<string[]>;
  /** The raw drafts. */
  drafts(): Promise<string[]>;
  /** The user moves this message elsewhere, outside Handoff. */
  moveAway(messageId: string): Promise<void>;
  cleanup(): Promise<void>;
}

const MESSAGES: MessageSpec[] = [1, 2, 3].map((n) => ({
  from: `sender${n}@example.org`,
  fromName: `Sender ${n}`,
  to: 'me@example.com',
  subject: `Message ${n}`,
  body: `Body of message ${n}.\n`,
  date: new Date(`2025-03-1${n}T09:00:00Z`),
  messageId: `<m${n}@example.org>`,
}));

async function maildirBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'handoff-contract-'));
  const root = join(dir, 'Maildir');
  await writeMaildir(root, MESSAGES);
  const store = new JsonFileStore(join(dir, 'state'));
  const folderOf = { inbox: '', archive: '.Archive', trash: '.Trash', drafts: '.Drafts' } as const;
  const raws = async (folder: keyof typeof folderOf) => {
    const out: string[] = [];
    for (const sub of ['new', 'cur']) {
      const d = join(root, folderOf[folder], sub);
      for (const f of await readdir(d).catch(() => [] as string[]))
        out.push(await readFile(join(d, f), 'utf8'));
    }
    return out;
  };
  return {
    source: new MaildirSource(root),
    reopen: () => new MaildirSource(root),
    store,
    ids: async (folder) => (await raws(folder)).map((r) => /^Message-ID:\s*(\S+)/im.exec(r)?.[1] ?? ''),
    drafts: () => raws('drafts'),
    async moveAway(messageId) {
      for (const sub of ['new', 'cur']) {
        for (const f of await readdir(join(root, sub))) {
          const raw = await readFile(join(root, sub, f), 'utf8');
          if (raw.includes(messageId)) await rename(join(root, sub, f), join(dir, f));
        }
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

let dovecot: Dovecot;

async function imapBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'handoff-contract-'));
  const store = new JsonFileStore(join(dir, 'state'));
  const client = await dovecot.connect();
  for (const box of ['INBOX', 'Archive', 'Trash', 'Drafts']) {
    await client.mailboxOpen(box);
    if (client.mailbox && client.mailbox.exists > 0) await client.messageDelete('1:*');
  }
  await client.logout();
  await dovecot.append(MESSAGES.map((m) => renderMessage(m)));
  const credentials = await imapCredentials(store, join(dir, 'state'));
  const source = new ImapSource(imapConfig(dovecot), credentials);
  const reopened: ImapSource[] = [];
  const box = { inbox: 'INBOX', archive: 'Archive', trash: 'Trash', drafts: 'Drafts' } as const;
  return {
    source,
    reopen: () => {
      reopened.push(new ImapSource(imapConfig(dovecot), credentials));
      return reopened.at(-1)!;
    },
    store,
    ids: (folder) => messageIds(dovecot, box[folder]),
    drafts: () => dovecot.messages('Drafts'),
    async moveAway(messageId) {
      const c = await dovecot.connect();
      await c.mailboxOpen('INBOX');
      const uids = await c.search({ header: { 'message-id': messageId } }, { uid: true });
      if (uids && uids.length > 0) await c.messageMove(uids.join(','), 'Trash', { uid: true });
      await c.logout();
    },
    async cleanup() {
      for (const s of [source, ...reopened]) await s.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot.stop();
});

describe.each([
  ['maildir', maildirBackend],
  ['imap (Dovecot)', imapBackend],
])('the %s source', (_name, make) => {
  let b: Backend;
  beforeEach(async () => {
    b = await make();
  });
  afterEach(async () => {
    await b.cleanup();
  });

  const context = (): ActionContext => ({
    store: b.store,
    workflowId: 'wf',
    runId: 'run_1',
    note: null,
    reasoning: null,
  });

  async function readAll(): Promise<SourceItem[]> {
    const items: SourceItem[] = [];
    for (const ref of await b.source.listRefs()) {
      const read = await b.source.read(ref);
      if (read.ok) items.push(read.item);
    }
    return items;
  }

  it('lists every message once, in a stable order, and reads each with its Message-ID as id', async () => {
    const refs = await b.source.listRefs();
    expect(refs).toHaveLength(3);
    expect(await b.source.listRefs()).toEqual(refs);
    const items = await readAll();
    expect(items.map((i) => i.id).sort()).toEqual([
      '<m1@example.org>',
      '<m2@example.org>',
      '<m3@example.org>',
    ]);
    const first = items.find((i) => i.id === '<m1@example.org>')!;
    expect(first).toMatchObject({
      sender: { address: 'sender1@example.org', name: 'Sender 1' },
      to: ['me@example.com'],
      subject: 'Message 1',
    });
    expect(first.text).toContain('Body of message 1.');
  });

  it('archives, deletes to the trash and drafts a reply, touching only the message acted on', async () => {
    const [m1, m2, m3] = (await readAll()).sort((x, y) => x.id.localeCompare(y.id));
    await b.source.perform('archive', m1!, context());
    await b.source.perform('delete', m2!, context());
    const words = { action: 'draft_reply', title: null, body: 'Will do.', by: 'person' as const };
    await b.source.perform('draft_reply', m3!, { ...context(), note: 'a note is never mail', words });
    expect(await b.ids('inbox')).toEqual(['<m3@example.org>']);
    expect(await b.ids('archive')).toEqual(['<m1@example.org>']);
    expect(await b.ids('trash')).toEqual(['<m2@example.org>']);
    const [draft] = await b.drafts();
    const parsed = await simpleParser(draft!);
    expect(parsed.inReplyTo).toBe('<m3@example.org>');
    expect(parsed.subject).toBe('Re: Message 3');
    expect(parsed.to && 'value' in parsed.to ? parsed.to.value[0]?.address : null).toBe(
      'sender3@example.org',
    );
    expect(parsed.text).toContain('Will do.');
    expect(draft).not.toContain('a note is never mail');
  });

  it('files a ticket as a record in the store', async () => {
    const [m1] = await readAll();
    const detail = await b.source.perform('file_ticket', m1!, context());
    expect(detail).toMatch(/^ticket tkt_[0-9a-f]+ filed$/);
    expect(await b.store.list('tickets')).toHaveLength(1);
  });

  it('refuses to act on a message the user moved away in between, and touches nothing else', async () => {
    const items = await readAll();
    const m1 = items.find((i) => i.id === '<m1@example.org>')!;
    await b.moveAway('<m1@example.org>');
    await expect(b.source.perform('archive', m1, context())).rejects.toThrow(/gone|not found/);
    expect(await b.ids('archive')).toEqual([]);
    expect((await b.ids('inbox')).sort()).toEqual(['<m2@example.org>', '<m3@example.org>']);
  });

  it('never acts twice: a second archive of the same item does nothing', async () => {
    const [m1] = await readAll();
    await b.source.perform('archive', m1!, context());
    await expect(b.source.perform('archive', m1!, context())).rejects.toThrow();
    expect(await b.ids('archive')).toEqual([m1!.id]);
    expect(await b.ids('inbox')).toHaveLength(2);
  });

  it('drafts a reply to an item read before a pause, from a source opened afterwards', async () => {
    const m2 = (await readAll()).find((i) => i.id === '<m2@example.org>')!;
    const later = b.reopen();
    await later.perform('draft_reply', m2, context());
    const [draft] = await b.drafts();
    expect((await simpleParser(draft!)).inReplyTo).toBe('<m2@example.org>');
  });
});

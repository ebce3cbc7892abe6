import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InvalidInputError } from '../../../shared/errors/index.ts';
import { renderMessage, writeMaildir, type MessageSpec } from '../../../shared/sources/maildir/generate.ts';
import {
  findMailFile,
  listMailFiles,
  MAX_TEXT,
  readMailItem,
  type MailItem,
} from '../../../shared/sources/maildir/maildir.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'handoff-maildir-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const msg = (over: Partial<MessageSpec> = {}): MessageSpec => ({
  from: 'Dana@BrightPath.example',
  fromName: 'Dana Whitfield',
  to: 'alex@northwind.example',
  subject: 'CSV export fails',
  body: 'Steps:\n1. Export\n2. Error 500\n',
  date: new Date('2025-03-10T09:15:00Z'),
  messageId: '<abc@brightpath.example>',
  ...over,
});

async function item(file: string): Promise<MailItem> {
  const r = await readMailItem(file);
  if (!r.ok) throw new Error(`unexpected failure: ${r.reason}`);
  return r.item;
}

describe('maildir reading', () => {
  it('lists files in new/ and cur/ sorted by name, skipping dotfiles and tmp/', async () => {
    const written = await writeMaildir(root, [msg(), msg({ messageId: '<b@x.example>' })]);
    await writeFile(
      join(root, 'cur', '0000000001.a:2,S'),
      renderMessage(msg({ messageId: '<old@x.example>' })),
    );
    await writeFile(join(root, 'new', '.hidden'), 'x');
    await writeFile(join(root, 'tmp', 'partial'), 'x');
    await mkdir(join(root, '.Archive', 'cur'), { recursive: true });
    const files = await listMailFiles(root);
    expect(files).toEqual([join(root, 'cur', '0000000001.a:2,S'), ...written]);
  });

  it('refuses a folder that is not a Maildir', async () => {
    await expect(listMailFiles(join(root, 'missing'))).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('reads headers and body; the Message-ID is the id', async () => {
    const [file = ''] = await writeMaildir(root, [
      msg({
        listUnsubscribe: '<https://x.example/u>',
        headers: { 'In-Reply-To': '<p@x.example>', References: '<o@x.example> <p@x.example>' },
      }),
    ]);
    const it1 = await item(file);
    expect(it1).toMatchObject({
      id: '<abc@brightpath.example>',
      messageId: '<abc@brightpath.example>',
      file,
      folder: 'new',
      from: { address: 'dana@brightpath.example', name: 'Dana Whitfield' },
      to: ['alex@northwind.example'],
      subject: 'CSV export fails',
      date: '2025-03-10T09:15:00.000Z',
      listUnsubscribe: true,
      inReplyTo: '<p@x.example>',
      references: ['<o@x.example>', '<p@x.example>'],
    });
    expect(it1.text).toContain('2. Error 500');
  });

  it('round-trips non-ASCII subjects, names and bodies', async () => {
    const [file = ''] = await writeMaildir(root, [
      msg({
        fromName: 'Zoë "QA" Müller',
        subject: 'Grüße – überfällige Rechnung №42 '.repeat(3).trim(),
        body: 'Ça marche ✓',
      }),
    ]);
    const it1 = await item(file);
    expect(it1.from.name).toBe('Zoë "QA" Müller');
    expect(it1.subject).toBe('Grüße – überfällige Rechnung №42 '.repeat(3).trim());
    expect(it1.text.trim()).toBe('Ça marche ✓');
  });

  it('uses <maildir-UNIQUE@local> when there is no Message-ID, and finds it again', async () => {
    const raw = 'From: a@b.example\r\nSubject: no id\r\n\r\nhello\r\n';
    await mkdir(join(root, 'cur'), { recursive: true });
    const file = join(root, 'cur', '1741600000.42_7.host:2,S');
    await writeFile(file, raw);
    await writeMaildir(root, [msg()]);
    const it1 = await item(file);
    expect(it1.id).toBe('<maildir-1741600000.42_7.host@local>');
    expect(it1.messageId).toBeNull();
    expect(it1.folder).toBe('cur');
    expect(it1.date).toBeNull();
    expect((await item(file)).id).toBe(it1.id);
    expect(await findMailFile(root, it1.id)).toBe(file);
  });

  it('finds a file by Message-ID, or null', async () => {
    const files = await writeMaildir(root, [msg(), msg({ messageId: '<two@x.example>' })]);
    expect(await findMailFile(root, '<two@x.example>')).toBe(files[1]);
    expect(await findMailFile(root, '<nope@x.example>')).toBeNull();
  });

  it('finds one of two messages sharing a Message-ID by its fingerprint', async () => {
    const files = await writeMaildir(root, [msg(), msg({ subject: 'Another one' })]);
    const second = await item(files[1]!);
    expect(second.fingerprint).not.toBe((await item(files[0]!)).fingerprint);
    expect(await findMailFile(root, `${second.id}#${second.fingerprint}`)).toBe(files[1]);
    expect(await findMailFile(root, `${second.id}#000000000000`)).toBeNull();
  });

  it('falls back to html converted to text and caps text length', async () => {
    const html = 'From: a@b.example\r\nContent-Type: text/html\r\n\r\n<p>Hello <b>there</b></p>\r\n';
    const big = msg({ body: 'x'.repeat(MAX_TEXT + 500) });
    const [h = '', b = ''] = await writeMaildir(root, [html, big]);
    expect((await item(h)).text).toContain('Hello there');
    expect((await item(b)).text).toHaveLength(MAX_TEXT);
  });

  it.each([
    ['an empty file', '', /empty/],
    ['whitespace only', '\r\n\r\n  \n', /empty/],
    ['garbage bytes', Buffer.from([0, 159, 146, 150, 0, 255, 1, 2, 3, 0, 7, 8]), /binary/],
    ['no From', 'To: a@b.example\r\nSubject: orphan\r\n\r\nbody\r\n', /no From/],
    ['plain text, no headers', 'just some words\nand more words\n', /no From/],
  ])('returns ok:false for %s', async (_name, content, reason) => {
    await mkdir(join(root, 'new'), { recursive: true });
    const file = join(root, 'new', 'bad');
    await writeFile(file, content);
    const r = await readMailItem(file);
    expect(r).toEqual({ ok: false, file, reason: expect.stringMatching(reason) });
  });

  it('returns ok:false for a missing file', async () => {
    const r = await readMailItem(join(root, 'new', 'gone'));
    expect(r).toMatchObject({ ok: false, reason: 'file not found' });
  });

  it('delivers through tmp/ with Maildir unique names', async () => {
    const files = await writeMaildir(root, [msg(), msg()]);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
    for (const f of files) expect(basename(f)).toMatch(/^\d+\.\d+_\d+\.[^/]+$/);
    const text = await readFile(files[0] ?? '', 'utf8');
    expect(text).toMatch(/^From: Dana Whitfield <Dana@BrightPath\.example>\r\n/);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
  });
});

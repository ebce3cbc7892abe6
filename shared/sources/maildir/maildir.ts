/**
 * Reading a Maildir: `<root>/new` and `<root>/cur` hold one message per file;
 * folders such as `<root>/.Archive` are Maildirs of their own.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { simpleParser, type AddressObject, type EmailAddress } from 'mailparser';
import { InvalidInputError, errorMessage } from '../../errors/index.ts';
import { splitItemId } from '../source.ts';

/** One message, as the agent sees it. */
export interface MailItem {
  /** The Message-ID with angle brackets, or `<maildir-UNIQUE@local>` when there is none. */
  id: string;
  file: string;
  /** A short hash of the file's bytes: tells apart messages that share a Message-ID. */
  fingerprint: string;
  folder: 'new' | 'cur';
  from: { address: string; name: string };
  to: string[];
  subject: string;
  /** ISO 8601, or null when the Date header is missing or unreadable. */
  date: string | null;
  text: string;
  messageId: string | null;
  listUnsubscribe: boolean;
  inReplyTo: string | null;
  references: string[];
}

export type ReadResult = { ok: true; item: MailItem } | { ok: false; file: string; reason: string };

/** Longest body text kept on an item. */
export const MAX_TEXT = 20_000;

let counter = 0;

/** A fresh Maildir unique name: `<time>.<counter>_<pid>.<host>` (counter zero-padded so names sort in order). */
export function uniqueName(): string {
  const host = hostname().replace(/\//g, '\\057').replace(/:/g, '\\072');
  counter += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(counter).padStart(6, '0')}_${process.pid}.${host}`;
}

/** The unique part of a Maildir file name (before the `:2,` info). */
export function uniquePart(file: string): string {
  return basename(file).replace(/[:;!]2,.*$/, '');
}

/** Creates `dir` with its new/ cur/ tmp/ subfolders (no error when they exist). */
export async function ensureMaildir(dir: string): Promise<void> {
  await Promise.all(['new', 'cur', 'tmp'].map((sub) => mkdir(join(dir, sub), { recursive: true })));
}

/** Absolute paths of the messages in `<root>/new` and `<root>/cur`, sorted by file name; dotfiles skipped. */
export async function listMailFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  let folders = 0;
  for (const sub of ['new', 'cur']) {
    const dir = join(root, sub);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    folders += 1;
    for (const e of entries) if (e.isFile() && !e.name.startsWith('.')) found.push(join(dir, e.name));
  }
  if (folders === 0) throw new InvalidInputError(`${root}: not a Maildir (no new/ or cur/ folder)`);
  return found.sort((a, b) => cmp(basename(a), basename(b)) || cmp(a, b));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Parses one message file. Never throws for a bad message: returns ok:false with a short reason. */
export async function readMailItem(file: string): Promise<ReadResult> {
  const fail = (reason: string): ReadResult => ({ ok: false, file, reason });
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(err)})`);
  }
  return parseMail(raw, file);
}

/**
 * Parses one message's bytes (a Maildir file, or an IMAP message whose ref is `file`).
 * Never throws for a bad message: returns ok:false with a short reason. Without a
 * Message-ID the id is `fallbackId`, else `<maildir-UNIQUE@local>`.
 */
export async function parseMail(raw: Buffer, file: string, fallbackId?: string): Promise<ReadResult> {
  const fail = (reason: string): ReadResult => ({ ok: false, file, reason });
  if (raw.toString('latin1').trim() === '') return fail('empty file');
  if (looksBinary(raw)) return fail('not a mail message (binary data)');
  let parsed;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  } catch (err) {
    return fail(`cannot parse message: ${errorMessage(err)}`);
  }
  const sender = addresses(parsed.from)[0];
  if (!sender?.address) return fail('no From address');
  const rawDate = parsed.headerLines.find((h) => h.key === 'date')?.line.replace(/^date:\s*/i, '');
  // mailparser substitutes "now" for an unreadable Date header; report null instead.
  const dateOk = rawDate !== undefined && !Number.isNaN(Date.parse(rawDate));
  const date = dateOk && parsed.date ? parsed.date.toISOString() : null;
  const text = parsed.text ?? (typeof parsed.html === 'string' ? stripTags(parsed.html) : '');
  const refs = parsed.references;
  const item: MailItem = {
    id: parsed.messageId ?? fallbackId ?? `<maildir-${uniquePart(file)}@local>`,
    file,
    fingerprint: fingerprintOf(raw),
    folder: basename(dirname(file)) === 'new' ? 'new' : 'cur',
    from: { address: sender.address.toLowerCase(), name: sender.name ?? '' },
    to: [parsed.to]
      .flat()
      .flatMap((a) => addresses(a))
      .map((a) => a.address?.toLowerCase() ?? '')
      .filter((a) => a !== ''),
    subject: parsed.subject ?? '',
    date,
    text: text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text,
    messageId: parsed.messageId ?? null,
    listUnsubscribe: parsed.headerLines.some((h) => h.key === 'list-unsubscribe'),
    inReplyTo: parsed.inReplyTo ?? null,
    references: refs === undefined ? [] : Array.isArray(refs) ? refs : refs.split(/\s+/).filter(Boolean),
  };
  return { ok: true, item };
}

/**
 * The file of the message with this item id in `<root>/new` or `<root>/cur`, or null.
 * The id is a MailItem.id, or `<id>#<fingerprint>` for one of several messages sharing it.
 */
export async function findMailFile(root: string, itemId: string): Promise<string | null> {
  const { id, fingerprint } = splitItemId(itemId);
  const files = await listMailFiles(root);
  const fallback = /^<maildir-(.+)@local>$/.exec(id)?.[1];
  const needle = id.replace(/^<|>$/g, '');
  for (const file of files) {
    if (fallback !== undefined && uniquePart(file) !== fallback) continue;
    // Cheap pre-filter before a full parse: the id must appear in the file.
    if (fallback === undefined && !(await readFile(file)).includes(needle)) continue;
    const r = await readMailItem(file);
    if (r.ok && r.item.id === id && (fingerprint === null || r.item.fingerprint === fingerprint)) return file;
  }
  return null;
}

/** The first 12 hex digits of the SHA-256 of a message's bytes. */
export function fingerprintOf(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 12);
}

/** Flattens an address header (with groups) into plain addresses. */
function addresses(obj: AddressObject | undefined): EmailAddress[] {
  if (!obj) return [];
  return obj.value.flatMap((a) => (a.group ? a.group : [a]));
}

/** True when the head of the file has NUL bytes or mostly non-text bytes. */
function looksBinary(raw: Buffer): boolean {
  const head = raw.subarray(0, 4096);
  let odd = 0;
  for (const b of head) {
    if (b === 0) return true;
    if (b < 9 || (b > 13 && b < 32) || b === 127) odd += 1;
  }
  return odd / head.length > 0.1;
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Reading a Maildir: `<root>/new` and `<root>/cur` hold one message per file;
 * folders such as `<root>/.Archive` are Maildirs of their own.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { simpleParser, type AddressObject, type EmailAddress } from 'mailparser';
import { InvalidInputError, errorMessage } from '../../errors/index.ts';
import { splitItemId } from '../source.ts';
import { readLight, type MailFields } from './light-read.ts';

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
  // On this thread: three thread-pool round trips cost more than three mkdirs.
  for (const sub of ['new', 'cur', 'tmp']) mkdirSync(join(dir, sub), { recursive: true });
}

/** Absolute paths of the messages in `<root>/new` and `<root>/cur`, sorted by file name; dotfiles skipped. */
export async function listMailFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  let folders = 0;
  for (const sub of ['new', 'cur']) {
    const dir = join(root, sub);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }); // on this thread, as the reads
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
    // Synchronously: a thread-pool round trip costs more than reading a message from the page cache.
    raw = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(err)})`);
  }
  return parseMail(raw, file);
}

/**
 * Parses one message's bytes (a Maildir file, or an IMAP message whose ref is `file`).
 * Never throws for a bad message: returns ok:false with a short reason. Without a
 * Message-ID the id is `fallbackId`, else `<maildir-UNIQUE@local>`. A message whose text is
 * its plain-text parts (most mail) takes the light read, any other the full parse; both give
 * the same item.
 */
export async function parseMail(raw: Buffer, file: string, fallbackId?: string): Promise<ReadResult> {
  const refused = refusal(raw);
  if (refused) return { ok: false, file, reason: refused };
  let light;
  try {
    light = await readLight(raw);
  } catch {
    light = null; // the full parse says what is wrong with it
  }
  return light ? toMailItem(light, raw, file, fallbackId) : parseMailFully(raw, file, fallbackId);
}

/** parseMail through mailparser's full parse, whatever the message's shape. */
export async function parseMailFully(raw: Buffer, file: string, fallbackId?: string): Promise<ReadResult> {
  const refused = refusal(raw);
  if (refused) return { ok: false, file, reason: refused };
  let parsed;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  } catch (err) {
    return { ok: false, file, reason: `cannot parse message: ${errorMessage(err)}` };
  }
  const refs = parsed.references;
  const fields: MailFields = {
    from: addresses(parsed.from),
    to: [parsed.to].flat().flatMap((a) => addresses(a)),
    subject: parsed.subject ?? '',
    rawDate: parsed.headerLines.find((h) => h.key === 'date')?.line.replace(/^date:\s*/i, ''),
    date: parsed.date,
    text: parsed.text,
    html: typeof parsed.html === 'string' ? parsed.html : undefined,
    messageId: parsed.messageId,
    inReplyTo: parsed.inReplyTo,
    references: refs === undefined ? [] : Array.isArray(refs) ? refs : refs.split(/\s+/).filter(Boolean),
    listUnsubscribe: parsed.headerLines.some((h) => h.key === 'list-unsubscribe'),
  };
  return toMailItem(fields, raw, file, fallbackId);
}

/** Why these bytes are not a message at all, or null. */
function refusal(raw: Buffer): string | null {
  if (isBlank(raw)) return 'empty file';
  if (looksBinary(raw)) return 'not a mail message (binary data)';
  return null;
}

function toMailItem(
  fields: MailFields,
  raw: Buffer,
  file: string,
  fallbackId: string | undefined,
): ReadResult {
  const sender = fields.from[0];
  if (!sender?.address) return { ok: false, file, reason: 'no From address' };
  // mailparser substitutes "now" for an unreadable Date header; report null instead.
  const dateOk = fields.rawDate !== undefined && !Number.isNaN(Date.parse(fields.rawDate));
  const date =
    dateOk && fields.date && !Number.isNaN(fields.date.getTime()) ? fields.date.toISOString() : null;
  const text = fields.text ?? (fields.html !== undefined ? stripTags(fields.html) : '');
  const item: MailItem = {
    id: fields.messageId ?? fallbackId ?? `<maildir-${uniquePart(file)}@local>`,
    file,
    fingerprint: fingerprintOf(raw),
    folder: basename(dirname(file)) === 'new' ? 'new' : 'cur',
    from: { address: sender.address.toLowerCase(), name: sender.name ?? '' },
    to: fields.to.map((a) => a.address?.toLowerCase() ?? '').filter((a) => a !== ''),
    subject: fields.subject,
    date,
    text: text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text,
    messageId: fields.messageId ?? null,
    listUnsubscribe: fields.listUnsubscribe,
    inReplyTo: fields.inReplyTo ?? null,
    references: fields.references,
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
    if (fallback === undefined && !readFileSync(file).includes(needle)) continue;
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

/** True when every byte is whitespace (as String.trim reads latin-1), without copying the file into a string. */
function isBlank(raw: Buffer): boolean {
  for (const b of raw) if (b !== 0x20 && b !== 0xa0 && (b < 0x09 || b > 0x0d)) return false;
  return true;
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

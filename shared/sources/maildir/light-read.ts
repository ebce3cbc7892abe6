/**
 * The light read of a message: its header block and its text parts, nothing else. It uses
 * the pieces mailparser itself is built on (mailsplit's header reader and splitter, libmime,
 * libqp, libbase64, mailparser's address parser) and reads each field the way mailparser does,
 * so it gives the same values; but attachments are skipped undecoded, no HTML is converted
 * and no stream is set up for a one-part message. A message whose text mailparser would
 * assemble from anything but plain-text parts (HTML outside an alternative, format=flowed,
 * an embedded message) is left to the full parse.
 */
import { once } from 'node:events';
import { Headers, Splitter, type MimeNode, type SplitterChunk } from '@zone-eu/mailsplit';
import { decode as decodeBase64 } from 'libbase64';
import libmime from 'libmime';
import { decode as decodeQuotedPrintable } from 'libqp';
import { parseAddressHeader, type EmailAddress } from 'mailparser';

/** What both reads take from a message, before it becomes a MailItem. */
export interface MailFields {
  from: EmailAddress[];
  to: EmailAddress[];
  subject: string;
  /** The first Date header as written (without `Date:`), when there is one. */
  rawDate: string | undefined;
  date: Date | undefined;
  /** The text parts, as mailparser joins them; undefined when there is none. */
  text: string | undefined;
  html: string | undefined;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  references: string[];
  listUnsubscribe: boolean;
}

interface HeaderLine {
  key: string;
  line: string;
}

/** Charsets whose bytes are read as UTF-8 as they are, as mailparser reads them. */
const UTF8_NAMES = new Set(['ascii', 'usascii', 'utf8']);
/** A header block past this size is left to the full parse, which enforces mailsplit's limits. */
const MAX_LIGHT_HEAD = 64 * 1024;

/**
 * The fields of a message whose text is its plain-text parts (most mail), or null when the
 * message has another shape and needs the full parse. Never throws for a bad message.
 */
export async function readLight(raw: Buffer): Promise<MailFields | null> {
  const split = splitHead(raw);
  if (split.head.length > MAX_LIGHT_HEAD) return null;
  const head = new Headers(split.head);
  const body = bodyShape(head);
  if (body === 'multipart') return readParts(raw);
  if (!body) return null;
  const text = await decodeText([raw.subarray(split.bodyStart)], body.encoding, body.charset);
  return { ...headerFields(head.getList()), text: text === '' ? undefined : text, html: undefined };
}

/** A multipart message through mailsplit: the plain-text parts decoded, every other part skipped. */
async function readParts(raw: Buffer): Promise<MailFields | null> {
  const splitter = new Splitter();
  let root: MimeNode | null = null;
  let refused = false;
  const parts: { node: MimeNode; chunks: Buffer[] }[] = [];
  splitter.on('data', (chunk: SplitterChunk) => {
    if (chunk.type === 'node') {
      root ??= chunk;
      const role = roleOf(chunk);
      if (role === 'other') refused = true;
      else if (role === 'text') parts.push({ node: chunk, chunks: [] });
    } else if (chunk.type === 'body' && parts.at(-1)?.node === chunk.node)
      parts.at(-1)!.chunks.push(chunk.value);
  });
  try {
    splitter.end(raw);
    await once(splitter, 'end');
  } catch {
    return null; // the full parse reports it
  }
  const top = root as MimeNode | null;
  if (refused || !top || !top.headers) return null;
  const texts: string[] = [];
  for (const p of parts)
    texts.push(await decodeText(p.chunks, p.node.encoding || '', p.node.charset || 'ascii'));
  const nonEmpty = texts.filter((t) => t !== '');
  // No plain text at all: mailparser falls back on the HTML, and so does the full parse here.
  if (nonEmpty.length === 0) return null;
  return { ...headerFields(top.headers.getList()), text: nonEmpty.join('\n'), html: undefined };
}

/**
 * What a part is to mailparser's text: `text` (an inline text/plain part, whose text it keeps),
 * `skip` (an attachment, a multipart, HTML inside an alternative) or `other` (anything that
 * would add to the text some other way: HTML outside an alternative, flowed text, a message).
 */
function roleOf(node: MimeNode): 'text' | 'skip' | 'other' {
  const type = node.contentType || (node.root ? 'text/plain' : '');
  if (node.multipart) return 'skip';
  if (type.startsWith('message/')) return 'other';
  const textType = type === 'text/plain' || type === 'text/html';
  const inline = textType && (!node.disposition || node.disposition === 'inline');
  if (!inline) return 'skip';
  if (type === 'text/html') return inAlternative(node) ? 'skip' : 'other';
  return node.flowed ? 'other' : 'text';
}

function inAlternative(node: MimeNode): boolean {
  for (let p = node.parentNode; p; p = p.parentNode)
    if (p.contentType === 'multipart/alternative') return true;
  return false;
}

/** A text part's bytes as mailparser decodes them: transfer encoding, charset, LF line ends. */
async function decodeText(chunks: readonly Buffer[], encoding: string, charset: string): Promise<string> {
  const content = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const bytes =
    encoding === 'base64'
      ? decodeBase64(content.toString('latin1'))
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(content)
        : content;
  const name = charset.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const decoded = UTF8_NAMES.has(name) ? bytes.toString() : await fromCharset(bytes, charset);
  return decoded.replace(/\r?\n/g, '\n');
}

/** Bytes in another charset as UTF-8 text, through the decoder stream mailparser uses. */
async function fromCharset(bytes: Buffer, charset: string): Promise<string> {
  const stream = libmime.createDecodeStream(charset);
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer | string) =>
    out.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
  );
  stream.end(bytes);
  await once(stream, 'end');
  return Buffer.concat(out).toString();
}

/** The header block and where the body starts: after the first empty line, as mailsplit reads it. */
function splitHead(raw: Buffer): { head: Buffer; bodyStart: number } {
  let start = 0;
  while (start < raw.length) {
    const nl = raw.indexOf(0x0a, start);
    if (nl < 0) break;
    const len = nl - start;
    if (len === 0 || (len === 1 && raw[start] === 0x0d))
      return { head: raw.subarray(0, start), bodyStart: nl + 1 };
    start = nl + 1;
  }
  return { head: raw, bodyStart: raw.length };
}

/**
 * The encoding and charset of a one-part text/plain inline body, `multipart` for a multipart
 * message, or null for any other shape.
 */
function bodyShape(head: Headers): { encoding: string; charset: string } | 'multipart' | null {
  const hasType = head.get('Content-Type').length > 0;
  const hasDisposition = head.get('Content-Disposition').length > 0;
  const rawEncoding = head.getFirst('Content-Transfer-Encoding');
  if (rawEncoding.includes('(')) return null; // a comment in it: the full parse reads it
  if (!hasType && hasDisposition) return null; // the type would come from a file name
  const type = libmime.parseHeaderValue(head.getFirst('Content-Type'), { stripComments: true });
  const contentType = hasType ? (type.value || '').toLowerCase().trim() || 'text/plain' : 'text/plain';
  if (contentType.startsWith('multipart/')) return 'multipart';
  if (contentType !== 'text/plain') return null;
  if (hasDisposition) {
    const disposition = libmime.parseHeaderValue(head.getFirst('Content-Disposition'), {
      stripComments: true,
    });
    if ((disposition.value || '').toLowerCase().trim() !== 'inline') return null;
  }
  const params = hasType ? type.params : {};
  if ((params['format'] ?? '').toLowerCase().trim() === 'flowed') return null;
  return { encoding: rawEncoding.toLowerCase().trim(), charset: params['charset'] || 'ascii' };
}

/** The header fields MailItem needs, each read the way mailparser's header processing reads it. */
function headerFields(lines: readonly HeaderLine[]): Omit<MailFields, 'text' | 'html'> {
  const values = (key: string): string[] => lines.filter((l) => l.key === key).map((l) => valueOf(l.line));
  const firstOf = (key: string, read: (v: string) => string | undefined): string | undefined =>
    values(key)
      .map(read)
      .find((v) => v !== undefined && v !== '');
  const rawDateLine = lines.find((l) => l.key === 'date')?.line;
  const dateValue = values('date')[0];
  return {
    from: addresses(values('from').slice(0, 1)),
    to: addresses(values('to')),
    subject: firstOf('subject', decodeWords) ?? '',
    rawDate: rawDateLine?.replace(/^date:\s*/i, ''),
    date: dateValue === undefined ? undefined : new Date(dateValue),
    messageId: firstOf('message-id', (v) => bracketed(decodeWords(v))),
    inReplyTo: firstOf('in-reply-to', (v) => bracketed(decodeWords(v))),
    references: values('references').flatMap((v) =>
      decodeWords(v)
        .split(/\s+/)
        .flatMap((r) => bracketed(r) ?? []),
    ),
    listUnsubscribe: lines.some((l) => l.key === 'list-unsubscribe'),
  };
}

/** A header line's value: encoded words left in, 8-bit bytes read as UTF-8 (as mailparser does). */
function valueOf(line: string): string {
  const value = String(libmime.decodeHeader(line).value ?? '').trim();
  return Buffer.from(value, 'binary').toString();
}

function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** A Message-ID with its angle brackets, or undefined for an empty one. */
function bracketed(value: string): string | undefined {
  if (value === '') return undefined;
  return `${value.startsWith('<') ? '' : '<'}${value}${value.endsWith('>') ? '' : '>'}`;
}

/** The addresses of address headers, groups flattened, in order. */
function addresses(headerValues: readonly string[]): EmailAddress[] {
  return headerValues.flatMap((v) => parseAddressHeader(v).value.flatMap((a) => (a.group ? a.group : [a])));
}

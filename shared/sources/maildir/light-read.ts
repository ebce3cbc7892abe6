/**
 * The light read of a message: its header block and, for a message that is one plain-text
 * part, that part decoded. It uses the pieces mailparser itself is built on (mailsplit's
 * header reader, libmime, libqp, libbase64, mailparser's address parser) and reads each field
 * the way mailparser does, so it gives the same values at a fraction of the cost. Every other
 * shape of message (multipart, HTML, format=flowed, an attachment) is left to the full parse.
 */
import { Headers } from '@zone-eu/mailsplit';
import { decode as decodeBase64 } from 'libbase64';
import libmime from 'libmime';
import { decode as decodeCharset } from 'libmime/lib/charset';
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
 * The fields of a message that is a single plain-text part (the common case), or null when
 * the message has another shape and needs the full parse. Never throws for a bad message.
 */
export function readPlainMessage(raw: Buffer): MailFields | null {
  const split = splitHead(raw);
  if (split.head.length > MAX_LIGHT_HEAD) return null;
  const head = new Headers(split.head);
  const lines = head.getList();
  const body = bodyShape(head);
  if (!body) return null;
  const content = raw.subarray(split.bodyStart);
  const bytes =
    body.encoding === 'base64'
      ? decodeBase64(content.toString('latin1'))
      : body.encoding === 'quoted-printable'
        ? decodeQuotedPrintable(content)
        : content;
  const charset = body.charset.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const decoded = UTF8_NAMES.has(charset) ? bytes.toString() : decodeCharset(bytes, body.charset);
  const text = decoded.replace(/\r?\n/g, '\n');
  return { ...headerFields(lines), text: text === '' ? undefined : text, html: undefined };
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

/** The encoding and charset of a one-part text/plain inline body, or null for any other shape. */
function bodyShape(head: Headers): { encoding: string; charset: string } | null {
  const hasType = head.get('Content-Type').length > 0;
  const hasDisposition = head.get('Content-Disposition').length > 0;
  const rawEncoding = head.getFirst('Content-Transfer-Encoding');
  if (rawEncoding.includes('(')) return null; // a comment in it: the full parse reads it
  if (!hasType && hasDisposition) return null; // the type would come from a file name
  const type = libmime.parseHeaderValue(head.getFirst('Content-Type'), { stripComments: true });
  const contentType = hasType ? (type.value || '').toLowerCase().trim() || 'text/plain' : 'text/plain';
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

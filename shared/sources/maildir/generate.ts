/**
 * Writing messages: RFC 5322 rendering and Maildir delivery (tmp/ then new/).
 * Used by draft replies, tests, the demo and benchmarks.
 */
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureMaildir, uniqueName } from './maildir.ts';

/** A message to render. Addresses are bare (`a@b.example`); names go in `fromName`. */
export interface MessageSpec {
  from: string;
  fromName?: string;
  to: string;
  subject: string;
  body: string;
  date: Date;
  /** With or without angle brackets. */
  messageId: string;
  /** The List-Unsubscribe value, e.g. `<https://x.example/u?id=1>, <mailto:u@x.example>`. */
  listUnsubscribe?: string;
  /** Extra headers (e.g. In-Reply-To, References), written before the MIME headers. */
  headers?: Record<string, string>;
}

const CRLF = '\r\n';

/** Renders a text/plain UTF-8 RFC 5322 message with CRLF line endings. */
export function renderMessage(m: MessageSpec): string {
  const lines = [
    header('From', formatAddress(m.from, m.fromName)),
    header('To', m.to),
    header('Subject', encodeWords(m.subject)),
    header('Date', formatDate(m.date)),
    header('Message-ID', bracket(m.messageId)),
  ];
  if (m.listUnsubscribe !== undefined) lines.push(header('List-Unsubscribe', m.listUnsubscribe));
  for (const [name, value] of Object.entries(m.headers ?? {})) {
    if (!/^[!-9;-~]+$/.test(name)) throw new Error(`invalid header name "${name}"`);
    lines.push(header(name, value));
  }
  const body = m.body.replace(/\r?\n/g, CRLF);
  const plain = /^[\x00-\x7f]*$/.test(body) && body.split(CRLF).every((l) => l.length <= 998);
  lines.push(
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Transfer-Encoding: ${plain ? '7bit' : 'base64'}`,
  );
  const encoded = plain
    ? body
    : (
        Buffer.from(body, 'utf8')
          .toString('base64')
          .match(/.{1,76}/g) ?? []
      ).join(CRLF);
  return `${lines.join(CRLF)}${CRLF}${CRLF}${encoded}${encoded.endsWith(CRLF) ? '' : CRLF}`;
}

/**
 * Creates the Maildir at `root` if needed and delivers each message (rendered
 * or raw text) via tmp/ then new/. Returns the delivered paths, in order.
 */
export async function writeMaildir(
  root: string,
  messages: readonly (MessageSpec | string)[],
): Promise<string[]> {
  await ensureMaildir(root);
  const paths: string[] = [];
  for (const m of messages) {
    const name = uniqueName();
    const tmp = join(root, 'tmp', name);
    const dest = join(root, 'new', name);
    await writeFile(tmp, typeof m === 'string' ? m : renderMessage(m), { flag: 'wx' });
    await rename(tmp, dest);
    paths.push(dest);
  }
  return paths;
}

/** RFC 5322 date, e.g. `Mon, 10 Mar 2025 09:15:00 +0000`. */
export function formatDate(d: Date): string {
  return d.toUTCString().replace(/GMT$/, '+0000');
}

/** `value` with angle brackets. */
export function bracket(id: string): string {
  const bare = clean(id).replace(/^<|>$/g, '');
  return `<${bare}>`;
}

/** `Name <address>` (name quoted or encoded as needed), or the bare address when there is no name. */
export function formatAddress(address: string, name?: string): string {
  return name ? `${displayName(name)} <${clean(address)}>` : clean(address);
}

/** Removes CR/LF so a value cannot start a new header. */
function clean(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/** A folded header line (folds at spaces near 78 columns). */
function header(name: string, value: string): string {
  const words = clean(value).split(' ');
  const out: string[] = [];
  let line = `${name}:`;
  for (const w of words) {
    if (line.length + 1 + w.length > 78 && line.length > name.length + 1) {
      out.push(line);
      line = ` ${w}`;
    } else line += ` ${w}`;
  }
  out.push(line);
  return out.join(CRLF);
}

/** A display name: quoted if needed, RFC 2047-encoded if not ASCII. */
function displayName(name: string): string {
  const n = clean(name);
  if (!/^[\x20-\x7e]*$/.test(n)) return encodeWords(n);
  return /^[A-Za-z0-9 !#$%&'*+\-/=?^_`{|}~]*$/.test(n) ? n : `"${n.replace(/(["\\])/g, '\\$1')}"`;
}

/** RFC 2047 B-encoding for non-ASCII text, split into encoded words of at most ~45 bytes. */
function encodeWords(text: string): string {
  const t = clean(text);
  if (/^[\x20-\x7e]*$/.test(t)) return t;
  const words: string[] = [];
  let chunk = '';
  for (const ch of t) {
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(' ');
}

/**
 * The bench's IMAP round-trip counter, in front of a real Dovecot: each command a client sends
 * counts once, by name, and a literal (an APPEND's message, lines that look like commands
 * included) counts as nothing.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { ImapFlow } from 'imapflow';
import { CommandParser, type ImapCounter } from '../../bench/imap-counter.ts';
import { startImapSource, type ImapBench } from '../../bench/imap-bench.ts';
import { generateInbox } from '../../bench/generate-mail.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER } from '../support/dovecot.ts';

let bench: ImapBench;

beforeAll(async () => {
  bench = await startImapSource(generateInbox(12, 7).messages);
});
afterAll(async () => {
  await bench?.stop();
});

it('starts Dovecot with the generated messages already in the INBOX', async () => {
  const client = await login(bench.counter);
  try {
    const status = await client.status('INBOX', { messages: true });
    expect(status && status.messages).toBe(12);
  } finally {
    await client.logout();
  }
});

it('counts one round trip per command and none for the lines of a literal', async () => {
  const client = await login(bench.counter);
  bench.counter.reset();
  try {
    await client.mailboxOpen('INBOX');
    const draft = 'Subject: x\r\n\r\n2 UID MOVE 1 Trash\r\nA1 NOOP\r\n{5}\r\nhello\r\n';
    await client.append('INBOX', draft, ['\\Draft']);
    await client.noop();
  } finally {
    await client.logout();
  }
  // imapflow may still be listing folders from its login; the literal's lines count as nothing.
  const { LIST = 0, LSUB = 0, ...rest } = bench.counter.count.byName;
  expect(rest).toEqual({ SELECT: 1, APPEND: 1, NOOP: 1, LOGOUT: 1 });
  expect(bench.counter.count.total).toBe(4 + LIST + LSUB);
});

it('counts commands split across chunks and UID commands by their full name', () => {
  const names: string[] = [];
  const parser = new CommandParser((name) => names.push(name));
  for (const chunk of ['A1 UID FE', 'TCH 1:* (UID)\r\nA2 APPEND INBOX {3', '}\r\nab', 'c\r\nA3 NOOP\r\n'])
    parser.push(Buffer.from(chunk));
  expect(names).toEqual(['UID FETCH', 'APPEND', 'NOOP']);
});

async function login(counter: ImapCounter): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: counter.host,
    port: counter.port,
    secure: false,
    auth: { user: DOVECOT_USER, pass: DOVECOT_PASSWORD },
    logger: false,
  });
  await client.connect();
  return client;
}

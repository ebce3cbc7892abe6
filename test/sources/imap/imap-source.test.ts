/**
 * The IMAP source against a real Dovecot: one round trip for many pages, a one-STATUS wake-up,
 * and each bad setting as one clear line with nothing acted on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Credentials } from '../../../shared/credentials/credentials.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { ImapSource } from '../../../shared/sources/imap/imap-source.ts';
import { JsonFileStore } from '../../../shared/store/json-file-store.ts';
import { parseWorkflow } from '../../../shared/workflows/load.ts';
import { DOVECOT_PASSWORD, startDovecot, type Dovecot } from '../../support/dovecot.ts';
import { imapConfig, imapCredentials, messageIds } from '../../support/imap-fixture.ts';

let dovecot: Dovecot;
let dir: string;
let store: JsonFileStore;
let credentials: Credentials;

const message = (n: number) =>
  renderMessage({
    from: `sender${n}@example.org`,
    to: 'me@example.com',
    subject: `Message ${n}`,
    body: `Body ${n}\n`,
    date: new Date('2025-03-10T09:00:00Z'),
    messageId: `<n${n}@example.org>`,
  });

beforeAll(async () => {
  dovecot = await startDovecot();
  dir = await mkdtemp(join(tmpdir(), 'handoff-imap-'));
  store = new JsonFileStore(join(dir, 'state'));
  credentials = await imapCredentials(store, join(dir, 'state'));
  await dovecot.append(Array.from({ length: 60 }, (_, i) => message(i + 1)));
});
afterAll(async () => {
  await dovecot.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the IMAP source on Dovecot', () => {
  it('reads 60 messages in pages of 20 with one UID FETCH ahead of them, at most 0.2 round trips per item', async () => {
    const commands: string[] = [];
    const source = new ImapSource(imapConfig(dovecot), credentials, null, {
      onCommand: (c) => {
        if (/^[A-Z0-9]+ [A-Z]/.test(c)) commands.push(c); // tagged commands, not continuations
      },
    });
    try {
      const refs = await source.listRefs();
      expect(refs).toHaveLength(60);
      const ids: string[] = [];
      for (let i = 0; i < refs.length; i += 20) {
        for (const read of await source.readMany(refs.slice(i, i + 20))) if (read.ok) ids.push(read.item.id);
      }
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
      expect(commands.filter((c) => /UID FETCH/i.test(c))).toHaveLength(1); // the rest were read ahead
      expect(commands.length / 60).toBeLessThanOrEqual(0.2);
    } finally {
      await source.close();
    }
  });

  it('answers "anything new?" with one STATUS against the watermark of the last completed run', async () => {
    const commands: string[] = [];
    const source = new ImapSource(
      imapConfig(dovecot),
      credentials,
      { store, workflowId: 'wf', runId: 'run_1' },
      {
        onCommand: (c) => commands.push(c),
      },
    );
    try {
      expect(await source.mayHaveNew()).toBe(true); // never completed: read to find out
      await source.listRefs();
      await source.markSeen(); // the run completed
    } finally {
      await source.close();
    }
    // The next trigger, on its own connection: one STATUS, no SELECT, no FETCH.
    const next = new ImapSource(
      imapConfig(dovecot),
      credentials,
      { store, workflowId: 'wf', runId: 'run_1' },
      {
        onCommand: (c) => commands.push(c),
      },
    );
    try {
      commands.length = 0;
      expect(await next.mayHaveNew()).toBe(false);
      const mailboxCommands = commands.filter((c) => /STATUS|SELECT|EXAMINE|FETCH|SEARCH/.test(c));
      expect(mailboxCommands).toEqual([expect.stringMatching(/^\S+ STATUS INBOX \(UIDNEXT UIDVALIDITY\)$/)]);
    } finally {
      await next.close();
    }
    await dovecot.append([message(61)]);
    const after = new ImapSource(imapConfig(dovecot), credentials, {
      store,
      workflowId: 'wf',
      runId: 'run_1',
    });
    try {
      expect(await after.mayHaveNew()).toBe(true);
    } finally {
      await after.close();
    }
  });

  it('without a \\Archive folder, says which setting to add and moves nothing', async () => {
    const bare = await startDovecot({ specialUse: false });
    try {
      await bare.append([message(1)]);
      const source = new ImapSource(imapConfig(bare), credentials);
      const [ref] = await source.listRefs();
      const read = await source.read(ref!);
      if (!read.ok) throw new Error(read.reason);
      const context = { store, workflowId: 'wf', runId: 'run_1', note: null, reasoning: null };
      await expect(source.perform('archive', read.item, context)).rejects.toThrow(
        'the mailbox has no \\Archive folder: set source.archive_mailbox',
      );
      await source.close();
      expect(await messageIds(bare, 'INBOX')).toEqual(['<n1@example.org>']);
    } finally {
      await bare.stop();
    }
  });
});

describe('bad IMAP settings: one clear line, never the secret', () => {
  async function failure(source: ImapSource): Promise<string> {
    try {
      await source.listRefs();
    } catch (error) {
      await source.close();
      return (error as Error).message;
    }
    throw new Error('expected a failure');
  }

  it('a wrong password', async () => {
    const state = join(dir, 'state-wrong');
    const wrong = await imapCredentials(new JsonFileStore(state), state, 'not-the-password');
    const line = await failure(new ImapSource(imapConfig(dovecot), wrong));
    expect(line).toBe(
      `IMAP login to 127.0.0.1:${dovecot.port} as me@example.com was refused: check the password in credential TEST_IMAP_PASSWORD`,
    );
    expect(line).not.toContain('not-the-password');
  });

  it('TLS to a plain-text port', async () => {
    const line = await failure(new ImapSource(imapConfig(dovecot, { tls: true }), credentials));
    expect(line).toBe(
      `TLS handshake with 127.0.0.1:${dovecot.port} failed: is it a plain-text port? Use the server's TLS port (usually 993)`,
    );
  });

  it('an unknown mailbox', async () => {
    const line = await failure(new ImapSource(imapConfig(dovecot, { mailbox: 'Nope' }), credentials));
    expect(line).toBe('the IMAP server has no mailbox "Nope": check source.mailbox');
    expect(line).not.toContain(DOVECOT_PASSWORD);
  });

  it('a server that accepts and never answers: a bounded wait', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const source = new ImapSource(imapConfig({ host: '127.0.0.1', port }), credentials, null, {
        timeouts: { connect: 500, greeting: 500, socket: 1000 },
      });
      const line = await failure(source);
      expect(line).toBe(`IMAP server 127.0.0.1:${port} did not answer in time (is it an IMAP port?)`);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('plain text to a remote host is refused when the workflow is read', () => {
    const yaml = `id: mail
name: Mail
instructions: Triage.
trigger: { manual: true }
source: { type: imap, host: imap.example.com, port: 143, tls: false, user: me, credential: MAIL }
actions: [{ name: archive }]
human_gate: { options: [archive] }
`;
    expect(() => parseWorkflow(yaml, 'mail.yaml')).toThrow(
      /source\.tls.*must be true unless host is 127\.0\.0\.1/,
    );
  });
});

describe('finding a message again', () => {
  it('after UIDVALIDITY changed, finds it by Message-ID and acts on that one only', async () => {
    const client = await dovecot.connect();
    await client.mailboxCreate('Work');
    await client.logout();
    await dovecot.append([message(101), message(102)], 'Work');
    const source = new ImapSource(imapConfig(dovecot, { mailbox: 'Work' }), credentials);
    const context = { store, workflowId: 'wf', runId: 'run_1', note: null, reasoning: null };
    try {
      const refs = await source.listRefs();
      const reads = await source.readMany(refs);
      const item = reads.flatMap((r) => (r.ok && r.item.id === '<n102@example.org>' ? [r.item] : []))[0]!;
      // The folder is recreated (a server move, a restore): same messages, new UIDVALIDITY.
      const admin = await dovecot.connect();
      await admin.mailboxDelete('Work');
      await admin.mailboxCreate('Work');
      await admin.logout();
      await dovecot.append([message(102), message(101)], 'Work');
      await source.close();
      const validity = (ref: string) => ref.split(':')[0];
      expect(validity((await source.listRefs())[0]!)).not.toBe(validity(refs[0]!));
      expect(await source.perform('archive', item, context)).toBe('archived to Archive');
      expect(await messageIds(dovecot, 'Work')).toEqual(['<n101@example.org>']);
      expect(await messageIds(dovecot, 'Archive')).toEqual(['<n102@example.org>']);
      // A read of a ref from before the change: gone, not unparseable.
      expect(await source.read(refs[0]!)).toMatchObject({ ok: false, gone: true });
    } finally {
      await source.close();
    }
  });
});

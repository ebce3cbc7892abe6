/**
 * The four mail templates end to end on a real Dovecot, as a person uses them: print the
 * template, fill in its mailbox (host, port, user), store the credential it names, add it,
 * run it with the offline model, answer one question, read the audit and the server.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { DEMO_MESSAGES } from '../../shared/sources/maildir/demo.ts';
import { renderMessage, type MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { DOVECOT_PASSWORD, DOVECOT_USER, startDovecot, type Dovecot } from '../support/dovecot.ts';
import { messageIds } from '../support/imap-fixture.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { COMPETITOR_MAIL, RECEIPT_MAIL, SUPPORT_MAIL } from '../support/template-mail.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';

interface AuditRow {
  item_id: string | null;
  outcome: string;
  action: string | null;
  decided_by: string | null;
}
interface Pending {
  decision_id: string;
  item_id: string;
  suggested_action: string;
}

let dovecot: Dovecot;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot.stop();
});
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-mail-templates-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Empties `mailbox` (created when missing) and APPENDs `messages` to it. */
async function seed(mailbox: string, messages: readonly MessageSpec[]): Promise<void> {
  const client = await dovecot.connect();
  try {
    if (!(await client.list()).some((m) => m.path === mailbox)) await client.mailboxCreate(mailbox);
    for (const box of [mailbox, 'Archive', 'Drafts']) {
      const lock = await client.getMailboxLock(box);
      try {
        await client.messageDelete('1:*');
      } finally {
        lock.release();
      }
    }
  } finally {
    await client.logout();
  }
  await dovecot.append(
    messages.map((m) => renderMessage(m)),
    mailbox,
  );
}

/**
 * `handoff templates ID`, its placeholders filled with the test server's host, port and user
 * (plain text is allowed to 127.0.0.1 only), the credential it names stored with
 * `handoff credentials set`, then `handoff workflows add`.
 */
async function addTemplate(id: string): Promise<void> {
  const template = await runCli(['templates', id], env);
  expect(template.code).toBe(0);
  const credential = /^ {2}credential: (\w+)/m.exec(template.stdout)![1]!;
  const yaml = template.stdout
    .replace(/^ {2}host: .*$/m, '  host: 127.0.0.1')
    .replace(/^ {2}port: .*$/m, `  port: ${dovecot.port}`)
    .replace(/^ {2}tls: .*$/m, '  tls: false')
    .replace(/^ {2}user: .*$/m, `  user: ${DOVECOT_USER}`);
  await fs.writeFile(path.join(dir, `${id}.yaml`), yaml);
  await fs.writeFile(path.join(dir, 'password'), `${DOVECOT_PASSWORD}\n`);
  const set = await runCli(
    ['credentials', 'set', credential, '--value-file', path.join(dir, 'password')],
    env,
  );
  expect(set.code).toBe(0);
  expect(await cliJson(['workflows', 'add', path.join(dir, `${id}.yaml`)], env)).toEqual({ id });
}

/** What a template should do with the mail seeded for it. */
interface Journey {
  /** Items the model is sure of, and the action the template gives them. */
  sure: Record<string, string>;
  /** Items it must ask about. */
  asked: string[];
  /** The question answered (with an action), then the rest answered `skip`. */
  answer: { item: string; action: string; note?: string; body?: string };
}

/**
 * Runs the workflow: the sure items acted on by the model, the rest asked; answers one with
 * `handoff decide`, the others `skip`; checks the audit, the tickets and the server agree.
 */
async function runAndAnswer(id: string, mailbox: string, journey: Journey): Promise<AuditRow[]> {
  const run = await cliJson<{ run_id: string; status: string }>(['run', id], env);
  expect(run.status).toBe('waiting');
  const pending = await cliJson<Pending[]>(['pending'], env);
  expect(pending.map((p) => p.item_id).sort()).toEqual([...journey.asked].sort());
  const answered = pending.find((p) => p.item_id === journey.answer.item)!;
  const note = journey.answer.note ? ['--note', journey.answer.note] : [];
  const body = journey.answer.body ? ['--body', journey.answer.body] : [];
  const decided = await runCli(
    ['decide', answered.decision_id, journey.answer.action, ...note, ...body],
    env,
  );
  expect(decided.code).toBe(0); // its stderr carries the completion notice when it is the last
  for (const p of pending.filter((q) => q !== answered))
    expect((await runCli(['decide', p.decision_id, 'skip'], env)).code).toBe(0);

  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs.find((r) => r.run_id === run.run_id)?.status).toBe('completed');
  const audit = (await cliJson<AuditRow[]>(['audit'], env)).filter((e) => e.item_id);
  const acted = audit.filter((e) => e.outcome === 'acted');
  const expected = [
    ...Object.entries(journey.sure).map(([item, action]) => ({ item, action, by: 'model' })),
    ...(journey.answer.action === 'skip'
      ? []
      : [{ item: journey.answer.item, action: journey.answer.action, by: 'human' }]),
  ];
  expect(acted.map((e) => ({ item: e.item_id, action: e.action, by: e.decided_by }))).toEqual(
    expect.arrayContaining(expected),
  );
  expect(acted).toHaveLength(expected.length); // nothing else, nothing twice
  for (const item of journey.asked.filter((i) => i !== journey.answer.item))
    expect(audit).toContainEqual(
      expect.objectContaining({ item_id: item, outcome: 'declined', decided_by: 'human' }),
    );

  // The server and the ticket store hold what the audit says, once each.
  const byAction = (action: string) =>
    acted
      .filter((e) => e.action === action)
      .map((e) => e.item_id)
      .sort();
  expect((await messageIds(dovecot, 'Archive')).sort()).toEqual(byAction('archive'));
  const drafts = await Promise.all((await dovecot.messages('Drafts')).map((raw) => simpleParser(raw)));
  expect(drafts.map((d) => d.inReplyTo).sort()).toEqual(byAction('draft_reply'));
  const tickets = await new JsonFileStore(workspaceDir(env.HANDOFF_STATE_DIR!, 'default')).list('tickets');
  expect(tickets.map((t) => t.item_id).sort()).toEqual(byAction('file_ticket'));
  // What was asked and not moved is still where it was.
  const left = await messageIds(dovecot, mailbox);
  for (const item of journey.asked.filter((i) => !byAction('archive').includes(i)))
    expect(left).toContain(item);
  return audit;
}

it('inbox triage on IMAP: newsletters and receipts archived, the bug filed, the colleague drafted', async () => {
  await seed('INBOX', DEMO_MESSAGES);
  await addTemplate('inbox-triage');
  await runAndAnswer('inbox-triage', 'INBOX', {
    sure: {
      '<iw-142.20250310@infraweekly.example>': 'archive',
      '<order-DG-20931@mail.deskgear.example>': 'archive',
      '<inv-2025-0311.northwind@billing.cloudlog.example>': 'archive',
      '<dr-weekly-0312@mailer.devreads.example>': 'archive',
      '<CAF8x2Lk9q@mail.brightpath.example>': 'file_ticket',
      '<b7d1e0c2-482@northwind.example>': 'draft_reply',
      '<a1f09c3e-sync@northwind.example>': 'draft_reply',
    },
    asked: [
      '<5521.jk.1741678200@synergia-growth.example>',
      '<f0c1e7d2-okafor@fastmail.example>',
      '<crash-7f3e91@alerts.crashwatch.example>',
      '<newsletter-2025-03@news.trackly.example>',
      '<20250311114700.77412@northwlnd-support.example>',
    ],
    answer: {
      item: '<f0c1e7d2-okafor@fastmail.example>',
      action: 'draft_reply',
      note: 'reply to people who follow up',
      body: 'Thanks, will look.',
    },
  });
  const drafts = await Promise.all((await dovecot.messages('Drafts')).map((raw) => simpleParser(raw)));
  const reply = drafts.find((d) => d.inReplyTo === '<f0c1e7d2-okafor@fastmail.example>')?.text;
  expect(reply).toContain('Thanks, will look.'); // the body given with the answer
  expect(reply).not.toContain('follow up'); // the note teaches; it is never mail
});

it('competitor watch on an IMAP folder of alerts: the newsletter archived, the pricing alert asked and filed', async () => {
  await seed('Competitors', COMPETITOR_MAIL);
  await addTemplate('competitor-watch');
  await runAndAnswer('competitor-watch', 'Competitors', {
    sure: { '<rw-57@rivalry-weekly.example>': 'archive' },
    asked: ['<alert-trackly-pricing@google.example>'],
    answer: { item: '<alert-trackly-pricing@google.example>', action: 'file_ticket' },
  });
});

it('receipts to ledger on an IMAP folder: the paid receipt filed, the overdue invoice asked and answered with a draft', async () => {
  await seed('Receipts', RECEIPT_MAIL);
  await addTemplate('receipts-to-ledger');
  await runAndAnswer('receipts-to-ledger', 'Receipts', {
    sure: { '<inv-2025-0311@cloudlog.example>': 'file_ticket' },
    asked: ['<inv-7781@printhaus.example>'],
    answer: {
      item: '<inv-7781@printhaus.example>',
      action: 'draft_reply',
      body: 'Please send a proper invoice.',
    },
  });
});

it('support inbox on IMAP: the problem report filed, the account-access request asked and left alone', async () => {
  await seed('INBOX', SUPPORT_MAIL);
  await addTemplate('support-inbox');
  await runAndAnswer('support-inbox', 'INBOX', {
    sure: { '<csv-500@brightpath.example>': 'file_ticket' },
    asked: ['<t4471@status.bigcorp.example>'],
    answer: { item: '<t4471@status.bigcorp.example>', action: 'skip' },
  });
});

/**
 * Whole runs against a real Dovecot through the real CLI, with the offline model: confident
 * items moved, the unsure asked and answered with `handoff decide`, the draft in Drafts; and
 * a run killed or cut off mid-batch acts on nothing twice and nothing without a decision.
 */
import fs from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { DEMO_MESSAGES, demoWorkflowYaml } from '../../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../../shared/sources/maildir/generate.ts';
import { cliJson, runCli } from '../../support/cli.ts';
import {
  DOVECOT_PASSWORD,
  DOVECOT_USER,
  freePort,
  startDovecot,
  type Dovecot,
} from '../../support/dovecot.ts';
import { messageIds } from '../../support/imap-fixture.ts';

interface AuditRow {
  run_id: string;
  item_id: string | null;
  outcome: string;
  action: string | null;
  decided_by: string | null;
  detail?: string | null;
}

let dovecot: Dovecot;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  dovecot = await startDovecot();
  await dovecot.append(DEMO_MESSAGES.map((m) => renderMessage(m)));
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-imap-run-'));
  env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await fs.writeFile(path.join(dir, 'password'), `${DOVECOT_PASSWORD}\n`);
  const set = await runCli(
    ['credentials', 'set', 'MAIL_PASSWORD', '--value-file', path.join(dir, 'password')],
    env,
  );
  expect(set.code).toBe(0);
});
const afterThis: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of afterThis.splice(0)) await close();
  await dovecot.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Adds (or replaces: tests change its mailbox) the demo workflow reading the Dovecot INBOX at `port` (`extra`: more `source:` fields). */
async function addWorkflow(port: number, extra = 'tls: false'): Promise<void> {
  const yaml = demoWorkflowYaml('/unused').replace(
    /^source: .*$/m,
    `source: { type: imap, host: 127.0.0.1, port: ${port}, ${extra}, user: ${DOVECOT_USER}, credential: MAIL_PASSWORD }`,
  );
  await fs.writeFile(path.join(dir, 'inbox.yaml'), yaml);
  await cliJson(['workflows', 'add', path.join(dir, 'inbox.yaml'), '--replace'], env);
}

/** Every item acted once at most, each acted one decided by someone, each asked one not acted. */
async function expectNeverTwiceNeverUndecided(): Promise<AuditRow[]> {
  const audit = await cliJson<AuditRow[]>(['audit'], env);
  const acted = audit.filter((e) => e.outcome === 'acted');
  expect(new Set(acted.map((e) => e.item_id)).size).toBe(acted.length);
  for (const entry of acted) expect(entry.decided_by).not.toBeNull();
  const pending = await cliJson<{ item_id: string }[]>(['pending'], env);
  for (const asked of pending) expect(acted.map((e) => e.item_id)).not.toContain(asked.item_id);
  // What the server holds agrees with the audit: each archived message once.
  const archived = await messageIds(dovecot, 'Archive');
  expect(new Set(archived).size).toBe(archived.length);
  expect(archived.sort()).toEqual(
    acted
      .filter((e) => e.action === 'archive')
      .map((e) => e.item_id)
      .sort(),
  );
  return audit;
}

it('a whole run on Dovecot: confident items moved, the unsure asked, the answer drafted into Drafts', async () => {
  const counter = await cuttingProxy(dovecot.port, { cut: false });
  afterThis.push(counter.close);
  await addWorkflow(counter.port);
  const run = await cliJson<{ run_id: string; status: string; acted: number; deferred: number }>(
    ['run', 'inbox-triage'],
    env,
  );
  expect(run).toMatchObject({ status: 'waiting' });
  expect(run.acted).toBeGreaterThan(0);
  expect(run.deferred).toBeGreaterThan(0);
  expect((await messageIds(dovecot, 'Archive')).length).toBeGreaterThan(0);
  // Items are read a page (10) at a time: one UID FETCH per page, never one per message.
  const fetches = counter.commands.filter((c) => c === 'UID FETCH').length;
  expect(fetches).toBeGreaterThan(0);
  expect(fetches).toBeLessThanOrEqual(3 * Math.ceil(DEMO_MESSAGES.length / 10)); // trigger, executor, one spare

  const pending = await cliJson<{ decision_id: string; item_id: string; options: string[] }[]>(
    ['pending'],
    env,
  );
  const [first, ...rest] = pending;
  const decided = await runCli(
    [
      'decide',
      first!.decision_id,
      'draft_reply',
      '--note',
      'a note is never mail',
      '--body',
      'Thanks, will look.',
    ],
    env,
  );
  expect({ code: decided.code, stderr: decided.stderr }).toEqual({ code: 0, stderr: '' });
  for (const p of rest) expect((await runCli(['decide', p.decision_id, 'skip'], env)).code).toBe(0);

  const drafts = await Promise.all((await dovecot.messages('Drafts')).map((raw) => simpleParser(raw)));
  const answered = drafts.filter((d) => d.inReplyTo === first!.item_id);
  expect(answered).toHaveLength(1);
  const parsed = answered[0]!;
  expect(parsed.text).toContain('Thanks, will look.');
  for (const d of drafts) expect(d.text).not.toContain('a note is never mail');
  expect(await messageIds(dovecot, 'INBOX')).toContain(first!.item_id); // a draft leaves the original in place
  // The draft is an artifact of the run: the message as appended, with the item and the decision.
  const artifacts = await cliJson<
    { id: string; kind: string; item_id: string; decision_id: string; pointer: string }[]
  >(['artifacts', '--run', run.run_id], env);
  const draft = artifacts.find((a) => a.kind === 'draft' && a.item_id === first!.item_id)!;
  expect(draft).toMatchObject({ decision_id: first!.decision_id, pointer: 'imap://127.0.0.1/Drafts' });
  const kept = await cliJson<{ body: string }>(['artifacts', 'show', draft.id], env);
  expect((await simpleParser(kept.body)).messageId).toBe(parsed.messageId);

  const audit = await expectNeverTwiceNeverUndecided();
  expect(audit).toContainEqual(
    expect.objectContaining({
      item_id: first!.item_id,
      outcome: 'acted',
      action: 'draft_reply',
      decided_by: 'human',
    }),
  );
  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs.find((r) => r.run_id === run.run_id)?.status).toBe('completed');

  // Nothing new: the next run's trigger asks the server once and stops before any model call.
  counter.commands.length = 0;
  const again = await cliJson<{ run_id: string; status: string; acted: number }>(
    ['run', 'inbox-triage'],
    env,
  );
  expect(again.status).toBe('skipped');
  expect(counter.commands.filter((c) => /STATUS|SELECT|FETCH|SEARCH/.test(c))).toEqual(['STATUS']);
  expect(
    await fs.readdir(path.join(dir, 'state', 'workspaces', 'default', 'source_watermarks')),
  ).toHaveLength(1); // what it compared with
  expect(again.acted).toBe(0);
  expect((await cliJson<AuditRow[]>(['audit', '--run', again.run_id], env)).filter((e) => e.item_id)).toEqual(
    [],
  );
});

it.each([
  ['after the batch was done and recorded, before its claims settled', 'carry-out:half-recorded'],
  ['after the batch was claimed, before anything was done', 'carry-out:claimed'],
])('a run killed %s acts on nothing twice and nothing undecided once started again', async (_when, point) => {
  await addWorkflow(dovecot.port);
  const killed = await runCli(['run', 'inbox-triage'], { ...env, HANDOFF_CRASH_AT: point });
  expect(killed.signal).toBe('SIGKILL');
  const recorded = (await cliJson<AuditRow[]>(['audit'], env)).filter(
    (e) => e.outcome === 'acted' && e.action === 'archive',
  );
  // What the server holds is exactly what the audit says was done before the kill.
  expect((await messageIds(dovecot, 'Archive')).sort()).toEqual(recorded.map((e) => e.item_id).sort());
  if (point === 'carry-out:claimed') expect(recorded).toEqual([]);
  else expect(recorded.length).toBeGreaterThan(0);

  const second = await cliJson<{ status: string }>(['run', 'inbox-triage'], env);
  expect(second.status).toBe('waiting');
  await expectNeverTwiceNeverUndecided();
});

/**
 * A TCP proxy to Dovecot that, when the first MOVE is sent, cuts every connection before it
 * reaches the server and refuses new ones until `heal()`: the network went away mid-batch.
 */
async function cuttingProxy(
  target: number,
  options: { cut: boolean } = { cut: true },
): Promise<{
  port: number;
  commands: string[];
  cuts: () => number;
  heal: () => void;
  close: () => Promise<void>;
}> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  const commands: string[] = [];
  let armed = options.cut;
  let cuts = 0;
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      for (const m of chunk.toString('latin1').matchAll(/^\S+ ((?:UID )?[A-Z]+)/gm)) commands.push(m[1]!);
      if (armed && /^\S+ UID MOVE /m.test(chunk.toString('latin1'))) {
        armed = false;
        down = true;
        cuts += 1;
        for (const s of sockets) s.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    for (const s of [client, upstream]) {
      s.on('error', () => {});
      s.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    port,
    commands,
    cuts: () => cuts,
    heal: () => {
      down = false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

it('a connection dropped mid-batch fails the run, leaves acted items acted and the rest for the next run', async () => {
  const proxy = await cuttingProxy(dovecot.port);
  try {
    await addWorkflow(proxy.port);
    const cut = await runCli(['run', 'inbox-triage', '--json'], env);
    expect(proxy.cuts()).toBe(1);
    expect(cut.code).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^the connection to IMAP 127\.0\.0\.1:\d+ was lost$/),
    });
    const afterCut = await cliJson<AuditRow[]>(['audit'], env);
    // What was done before the cut stands, audited (the store-side tickets, carried out first);
    // the messages the lost MOVE was for were released untouched, not recorded as failed.
    const acted = afterCut.filter((e) => e.outcome === 'acted');
    expect(acted.length).toBeGreaterThan(0);
    expect(new Set(acted.map((e) => e.action))).toEqual(new Set(['file_ticket']));
    expect(await messageIds(dovecot, 'Archive')).toEqual([]);
    expect(afterCut.filter((e) => e.outcome === 'failed' && e.item_id)).toEqual([]);

    proxy.heal();
    const next = await cliJson<{ status: string; deferred: number }>(['run', 'inbox-triage'], env);
    expect(next.status).toBe('waiting');
    await expectNeverTwiceNeverUndecided();
    // The rest, in the next run: the messages are archived now, each once, and nothing the
    // cut run filed is filed again.
    expect((await messageIds(dovecot, 'Archive')).length).toBeGreaterThan(0);
    const pending = await cliJson<{ item_id: string }[]>(['pending'], env);
    expect(pending).toHaveLength(next.deferred);
  } finally {
    await proxy.close();
  }
});

it('a wrong password fails the run with one line, and nothing is acted on', async () => {
  await fs.writeFile(path.join(dir, 'password'), 'not-the-password\n');
  await runCli(['credentials', 'set', 'MAIL_PASSWORD', '--value-file', path.join(dir, 'password')], env);
  await addWorkflow(dovecot.port);
  const result = await runCli(['run', 'inbox-triage', '--json'], env);
  expect(result.code).toBe(1);
  const summary = JSON.parse(result.stdout) as { status: string; error: string };
  expect(summary.status).toBe('failed');
  expect(summary.error).toContain(
    `IMAP login to 127.0.0.1:${dovecot.port} as ${DOVECOT_USER} was refused: check the password in credential MAIL_PASSWORD`,
  );
  expect(result.stdout + result.stderr).not.toContain('not-the-password');
  expect((await cliJson<AuditRow[]>(['audit'], env)).filter((e) => e.item_id)).toEqual([]);
  expect(await messageIds(dovecot, 'INBOX')).toHaveLength(DEMO_MESSAGES.length);
});

it('an unknown mailbox or TLS to a plain port fails the run with one line, and nothing is acted on', async () => {
  for (const [extra, line] of [
    ['tls: false, mailbox: Nope', 'the IMAP server has no mailbox "Nope": check source.mailbox'],
    ['tls: true', `TLS handshake with 127.0.0.1:${dovecot.port} failed: is it a plain-text port?`],
  ] as const) {
    await addWorkflow(dovecot.port, extra);
    const result = await runCli(['run', 'inbox-triage', '--json'], env);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as { status: string; error: string };
    expect(summary.status).toBe('failed');
    expect(summary.error).toContain(line);
    expect(summary.error).not.toContain('\n');
  }
  expect((await cliJson<AuditRow[]>(['audit'], env)).filter((e) => e.item_id)).toEqual([]);
  expect(await messageIds(dovecot, 'INBOX')).toHaveLength(DEMO_MESSAGES.length);
});

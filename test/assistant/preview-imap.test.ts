import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { previewWorkflow } from '../../shared/assistant/preview.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { DEMO_MESSAGES } from '../../shared/sources/maildir/demo.ts';
import { renderMessage } from '../../shared/sources/maildir/generate.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import { COLLECTIONS, type Store } from '../../shared/store/store.ts';
import { WorkflowSchema } from '../../shared/workflows/schema.ts';
import { startDovecot, type Dovecot } from '../support/dovecot.ts';
import { imapConfig, imapCredentials } from '../support/imap-fixture.ts';

let dovecot: Dovecot;
let dir: string;

beforeAll(async () => {
  dovecot = await startDovecot();
  await dovecot.append(DEMO_MESSAGES.map((m) => renderMessage(m)));
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-preview-'));
});
afterAll(async () => {
  await dovecot?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * Every message of every mailbox: its bytes (hashed) and its flags, as the server holds them
 * (but \Recent, a per-session flag the first session to open a mailbox takes away).
 */
async function mailbox(): Promise<string[]> {
  const client = await dovecot.connect();
  const seen: string[] = [];
  try {
    for (const box of await client.list()) {
      const lock = await client.getMailboxLock(box.path, { readOnly: true });
      try {
        for await (const m of client.fetch('1:*', { source: true, flags: true }, { uid: true }))
          seen.push(
            `${box.path} ${[...(m.flags ?? [])]
              .filter((f) => f !== '\\Recent')
              .sort()
              .join(',')} ${createHash('sha256').update(m.source!).digest('hex')}`,
          );
      } catch {
        // an empty mailbox has no 1:*
      } finally {
        lock.release();
      }
    }
  } finally {
    await client.logout();
  }
  return seen.sort();
}

async function records(store: Store): Promise<Record<string, unknown>> {
  return Object.fromEntries(
    await Promise.all(COLLECTIONS.map(async (c) => [c, await store.list(c)] as const)),
  );
}

describe('a preview of an IMAP workflow', () => {
  it('reads real messages and judges each (act, ask, rule), moving, flagging and recording nothing', async () => {
    const store = new JsonFileStore(path.join(dir, 'state'));
    const credentials = await imapCredentials(store, path.join(dir, 'state'));
    await addRule(store, {
      workflowId: null,
      match: { domain: 'deskgear.example' },
      action: 'archive',
      note: 'receipts',
    });
    const workflow = WorkflowSchema.parse({
      id: 'mail',
      name: 'Mail',
      instructions: 'Archive newsletters. File bug reports as tickets.',
      trigger: { manual: true },
      source: imapConfig(dovecot),
      actions: [{ name: 'archive' }, { name: 'file_ticket' }, { name: 'delete', irreversible: true }],
      human_gate: { options: ['archive', 'file_ticket', 'skip'] },
    });
    const before = { mail: await mailbox(), records: await records(store) };

    const preview = await previewWorkflow({ store, credentials, threshold: 0.7 }, workflow, 12);

    expect(preview.ok).toBe(true);
    if (!preview.ok) return;
    expect(preview.count).toBe(DEMO_MESSAGES.length);
    expect(preview.rows).toHaveLength(12);
    const bySubject = new Map(preview.rows.map((r) => [r.subject, r]));
    expect(bySubject.get('Order confirmation #DG-20931')).toMatchObject({
      verdict: 'rule',
      action: 'archive',
    });
    expect([...bySubject.values()].some((r) => r.verdict === 'act')).toBe(true);
    expect([...bySubject.values()].filter((r) => r.verdict === 'ask').length).toBeGreaterThan(0);
    expect(await mailbox()).toEqual(before.mail); // no MOVE, no \\Seen, no APPEND
    expect(await records(store)).toEqual(before.records); // no claim, no watermark, no audit
  });

  it('says in one line why it cannot look, and changes nothing', async () => {
    const store = new JsonFileStore(path.join(dir, 'state-2'));
    const credentials = await imapCredentials(store, path.join(dir, 'state-2'), 'wrong-password');
    const workflow = WorkflowSchema.parse({
      id: 'mail',
      name: 'Mail',
      instructions: 'Archive newsletters.',
      trigger: { manual: true },
      source: imapConfig(dovecot),
      actions: [{ name: 'archive' }],
      human_gate: { options: ['archive', 'skip'] },
    });
    const before = { mail: await mailbox(), records: await records(store) };
    const preview = await previewWorkflow({ store, credentials, threshold: 0.7 }, workflow);
    expect(preview).toMatchObject({ ok: false, workflow_id: 'mail' });
    expect({ mail: await mailbox(), records: await records(store) }).toEqual(before);
    if (!preview.ok) expect(preview.error.split('\n')).toHaveLength(1);
  });
});

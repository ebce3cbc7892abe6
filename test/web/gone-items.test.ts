/**
 * A message another mail client moved or deleted while its question waited is not acted on:
 * the audit says `failed` with `gone: …`, and the run page shows why.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { makeHarness, type Harness } from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await makeHarness();
});
afterEach(() => h.cleanup());

/** Deletes the message with this Message-ID from the Maildir, as another client would. */
async function deleteElsewhere(maildir: string, messageId: string): Promise<void> {
  for (const sub of ['new', 'cur'])
    for (const name of await fs.readdir(path.join(maildir, sub))) {
      const file = path.join(maildir, sub, name);
      if ((await fs.readFile(file, 'utf8')).includes(messageId)) await fs.rm(file);
    }
}

it('audits an answered item whose message was deleted meanwhile as failed with gone: …, on the run page too', async () => {
  const started = await h.app.request('/api/workflows/inbox-triage/runs', {
    method: 'POST',
    headers: h.auth(),
  });
  const { run_id: runId } = (await started.json()) as { run_id: string };
  await h.launcher.idle();
  const pending = await listPending(h.engine.store);
  expect(pending.length).toBeGreaterThanOrEqual(2);
  const [toDraft, toArchive, ...rest] = pending;
  const maildir = (h.workflow.source as { path: string }).path;
  await deleteElsewhere(maildir, toDraft!.item_id);
  await deleteElsewhere(maildir, toArchive!.item_id);

  const answer = (id: string, action: string) =>
    h.app.request(`/api/decisions/${encodeURIComponent(id)}`, {
      method: 'POST',
      headers: h.auth({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ action }),
    });
  expect((await answer(toDraft!.id, 'draft_reply')).status).toBe(200);
  expect((await answer(toArchive!.id, 'archive')).status).toBe(200);
  for (const d of rest) expect((await answer(d.id, 'skip')).status).toBe(200);
  await h.launcher.idle();

  const audit = await listAudit(h.engine.store, { runId });
  for (const question of [toDraft!, toArchive!]) {
    const entry = audit.find((e) => e.item_id === question.item_id)!;
    expect(entry).toMatchObject({ outcome: 'failed', subject: question.subject });
    expect(entry.detail).toMatch(/^gone: .*(moved or deleted).*nothing (was )?done$/);
  }
  const page = await (await h.app.request(`/runs/${encodeURIComponent(runId)}`)).text();
  expect(page.match(/gone: /g)?.length ?? 0).toBeGreaterThanOrEqual(2);
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { listAudit } from '../../shared/audit/audit.ts';
import { readInstructions } from '../../shared/models/offline/classify.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDemoMaildir } from '../../shared/sources/maildir/demo.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

it('reads which action the instructions give each kind of item', () => {
  const plan = readInstructions(
    'Archive newsletters and receipts, file bug reports as tickets, draft replies to colleagues.',
    ['archive', 'file_ticket', 'draft_reply', 'delete'],
  );
  expect(Object.fromEntries(plan)).toEqual({
    newsletter: 'archive',
    receipt: 'archive',
    'bug report': 'file_ticket',
    colleague: 'draft_reply',
  });
});

it('drives the real agent loop over the demo inbox: handles the clear mail, asks about the rest, never above 0.95', async () => {
  const model = new OfflineModel();
  fixture = await engineFixture({ messages: [], model: () => model });
  await fs.rm(fixture.maildir, { recursive: true });
  await createDemoMaildir(fixture.maildir);

  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });

  expect(run.status).toBe('waiting');
  expect(run.counts.acted).toBeGreaterThanOrEqual(6);
  const pending = await listPending(fixture.store);
  const subjects = pending.map((d) => d.subject).join('\n');
  expect(subjects).toMatch(/password/i); // the phishing look-alike is never handled alone
  expect(subjects).toMatch(/partnership/i); // nor the unknown vendor's pitch
  const confidences = (await listAudit(fixture.store)).flatMap((e) =>
    e.decided_by === 'model' ? [e.confidence!] : [],
  );
  expect(Math.max(...confidences, ...pending.map((d) => d.confidence))).toBeLessThanOrEqual(0.95);
  expect(model.stats.maxInputChars).toBeGreaterThan(0);
});

it('is deterministic: the same inbox gives the same proposals', async () => {
  const runOnce = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-offline-'));
    const f = await engineFixture({ messages: [], model: () => new OfflineModel() });
    await fs.rm(f.maildir, { recursive: true });
    await createDemoMaildir(f.maildir);
    await startRun(f.deps, 'inbox', { kind: 'manual', detail: null });
    const pending = (await listPending(f.store)).map((d) => [d.item_id, d.suggested_action, d.confidence]);
    await f.cleanup();
    await fs.rm(dir, { recursive: true, force: true });
    return pending.sort();
  };
  expect(await runOnce()).toEqual(await runOnce());
});

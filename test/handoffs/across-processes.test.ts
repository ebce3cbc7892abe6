import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { handoffOccurred } from '../../shared/handoffs/index.ts';
import type { TraceEntry } from '../../shared/recorder/trace.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail, NEWSLETTER } from '../support/engine-fixture.ts';
import { SPECIALISTS, handoffItems } from './fixtures/specialists.ts';

interface Pending {
  decision_id: string;
  run_id: string;
  item_id: string;
  subject: string;
  suggested_action: string;
  confidence: number;
  agent?: string;
}

interface AuditRow {
  item_id: string | null;
  outcome: string;
  action: string | null;
  decided_by: string | null;
  agent?: string;
  handoff?: { from: string; to: string };
}

it('a run that handed an item to a specialist pauses in `handoff run` and resumes in a later `handoff decide`, in that specialist', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace(
    'handoff-specialists-',
    [
      mail(NEWSLETTER),
      mail({ from: 'billing@shop.example', subject: 'Your receipt' }),
      mail({ from: 'qa@customer.example', subject: 'Bug: crash on save' }),
      mail({ from: 'jo@synergia.example', subject: 'Strategic partnership opportunity' }),
    ],
    SPECIALISTS,
  );
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);

  // Process A: the run hands items to specialists and pauses at the gate.
  const run = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  expect(run.status).toBe('waiting');
  const pending = await cliJson<Pending[]>(['pending'], env);
  const receipt = pending.find((p) => p.subject === 'Your receipt')!;
  const pitch = pending.find((p) => p.subject.startsWith('Strategic'))!;
  expect(pending).toHaveLength(2);
  expect(receipt).toMatchObject({ run_id: run.run_id, suggested_action: 'archive' });
  expect(receipt.confidence).toBeLessThan(0.7); // billing was unsure: the gate asked…
  expect(receipt.agent).toBe('billing'); // …and the question says which specialist asked
  expect(pitch).not.toHaveProperty('agent'); // the executor asked about that one
  const before = await cliJson<AuditRow[]>(['audit', '--run', run.run_id], env);
  expect(before.filter((e) => e.item_id === receipt.item_id)).toEqual([
    expect.objectContaining({ outcome: 'handed_off', handoff: { from: 'executor', to: 'billing' } }),
  ]); // …and did not act
  const inboxBefore = await fs.readdir(path.join(maildir, 'new'));
  expect(inboxBefore).toHaveLength(3); // the newsletter was archived; a filed ticket leaves its mail in place

  // Process B answers one question; the run keeps waiting. Process C answers the last and resumes it.
  const [first] = await cliJson<{ run_status: string }[]>(['decide', pitch.decision_id, 'skip'], env);
  expect(first!.run_status).toBe('waiting');
  expect(await fs.readdir(path.join(maildir, 'new'))).toEqual(inboxBefore);
  const [last] = await cliJson<{ run_status: string }[]>(
    ['decide', receipt.decision_id, 'approve_suggested', '--note', 'receipts are fine'],
    env,
  );
  expect(last!.run_status).toBe('completed');

  // The resumed run carried out the answer as the specialist that asked.
  const audit = await cliJson<AuditRow[]>(['audit', '--run', run.run_id], env);
  expect(audit.filter((e) => e.item_id === receipt.item_id)).toEqual([
    expect.objectContaining({ outcome: 'handed_off', handoff: { from: 'executor', to: 'billing' } }),
    expect.objectContaining({ outcome: 'acted', action: 'archive', decided_by: 'human', agent: 'billing' }),
  ]);
  const pitchRows = audit.filter((e) => e.item_id === pitch.item_id);
  expect(pitchRows).toEqual([expect.objectContaining({ outcome: 'declined', decided_by: 'human' })]);
  expect(pitchRows[0]).not.toHaveProperty('agent'); // the executor asked about that one
  expect(audit.filter((e) => e.outcome === 'handed_off').map((e) => e.handoff!.to)).toEqual([
    'newsletters',
    'billing',
    'support',
  ]);
  expect(await fs.readdir(path.join(maildir, 'new'))).toHaveLength(2); // the receipt is archived now

  // The inspector shows the handoff pair, the pause and the resume as one trace.
  const trace = await cliJson<{ entries: TraceEntry[] }>(['inspect', run.run_id], env);
  const kinds = trace.entries.map((e) => e.kind);
  expect(handoffOccurred(handoffItems(trace.entries), 'executor', 'billing')).toBe(true);
  expect(
    trace.entries.filter(
      (e) => (e.kind === 'handoff_call' || e.kind === 'handoff_output') && e.item_id === receipt.item_id,
    ),
  ).toEqual([
    expect.objectContaining({ kind: 'handoff_call', source: 'executor', target: 'billing', via: 'route' }),
    expect.objectContaining({ kind: 'handoff_output', source: 'executor', target: 'billing' }),
  ]);
  expect(kinds.indexOf('handoff_call')).toBeLessThan(kinds.indexOf('pause'));
  expect(kinds.indexOf('pause')).toBeLessThan(kinds.indexOf('resume'));
  const lines = (await runCli(['inspect', run.run_id], env)).stdout;
  expect(lines).toContain(`⇢ handoff call executor → billing · item ${receipt.item_id}`);
  expect(lines).toContain(`⇢ handoff output: billing now decides item ${receipt.item_id}`);
  expect(lines).toMatch(/\[billing\] tool submit_action · cancelled/);
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * Answers take effect as they arrive (issue 29): an answered item is carried out right after
 * its answer, while the run waits for the rest, and counted at once; the last answer resumes
 * the run, which completes. Under kill -9 at any moment of answering in a batch, each item is
 * carried out once and audited once.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail } from '../support/engine-fixture.ts';

interface Pending {
  decision_id: string;
  item_id: string;
}
interface AuditRow {
  run_id: string;
  item_id: string | null;
  outcome: string;
  decided_by: string | null;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

const neutral = (from: string, subject: string) =>
  mail({ from, subject, body: 'Hi,\n\nPlease see the attached note when convenient.\n' });

/** A run waiting on four questions about four messages. */
async function waitingRun(prefix: string) {
  const { dir, maildir, workflowFile } = await cliWorkspace(prefix, [
    neutral('ana@one.example', 'Statement'),
    neutral('bo@two.example', 'A question'),
    neutral('cy@three.example', 'Another question'),
    neutral('di@four.example', 'A last question'),
  ]);
  dirs.push(dir);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  const run = await cliJson<{ run_id: string; status: string; deferred: number }>(['run', 'inbox'], env);
  expect(run).toMatchObject({ status: 'waiting', deferred: 4 });
  const pending = await cliJson<Pending[]>(['pending'], env);
  expect(pending).toHaveLength(4);
  return { env, maildir, runId: run.run_id, pending };
}

const files = async (dir: string) => fs.readdir(dir).catch(() => [] as string[]);

it('half the answers are carried out at once while the run still waits, and counted; the rest complete it', async () => {
  const { env, maildir, runId, pending } = await waitingRun('handoff-arrive-');
  const [a, b, c, d] = pending;
  const results = await cliJson<{ ok: boolean; run_status: string }[]>(
    ['decide', a!.decision_id, b!.decision_id, 'archive', '--once'],
    env,
  );
  expect(results.map((r) => [r.ok, r.run_status])).toEqual([
    [true, 'waiting'],
    [true, 'waiting'],
  ]);
  // Within the answer: the two are archived and audited, the run waits for the other two.
  expect(await files(path.join(maildir, '.Archive', 'cur'))).toHaveLength(2);
  expect(await files(path.join(maildir, 'new'))).toHaveLength(2);
  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs.find((r) => r.run_id === runId)?.status).toBe('waiting');
  const audit = await cliJson<AuditRow[]>(['audit', '--run', runId], env);
  expect(
    audit
      .filter((e) => e.decided_by === 'human')
      .map((e) => [e.item_id, e.outcome])
      .sort(),
  ).toEqual(
    [
      [a!.item_id, 'acted'],
      [b!.item_id, 'acted'],
    ].sort(),
  );
  // The run's counts (its page, the Overview, `stats`) say what was done.
  const stats = await cliJson<{ overall: { acted: number; by_you: number; asked: number } }>(['stats'], env);
  expect(stats.overall).toMatchObject({ acted: 2, by_you: 2, asked: 4 });

  const last = await cliJson<{ ok: boolean; run_status: string }[]>(
    ['decide', c!.decision_id, d!.decision_id, 'skip', '--once'],
    env,
  );
  expect(last.at(-1)).toMatchObject({ ok: true, run_status: 'completed' });
  const finalAudit = await cliJson<AuditRow[]>(['audit', '--run', runId], env);
  const items = finalAudit.filter((e) => e.item_id !== null);
  expect(items.map((e) => e.item_id).sort()).toEqual(pending.map((p) => p.item_id).sort()); // once each
  const finalStats = await cliJson<{ overall: { acted: number; by_you: number; declined: number } }>(
    ['stats'],
    env,
  );
  expect(finalStats.overall).toMatchObject({ acted: 2, by_you: 2, declined: 2 });
});

const CRASH_POINTS = [
  'decide:answered', // the answer saved, nothing carried out
  'answer:carrying', // about to claim
  'carry-out:claimed', // claimed, nothing done
  'carry-out:performed', // done, not recorded
  'carry-out:half-recorded', // recorded (entries first where a store has no commit)
  'answer:carried', // recorded, not yet counted
];

it.each(CRASH_POINTS)(
  'answering in a batch killed at %s: each item carried out at most once and audited exactly once',
  async (point) => {
    const { env, maildir, runId, pending } = await waitingRun('handoff-arrive-kill-');
    const [a, b] = pending;
    const killed = await runCli(['decide', a!.decision_id, b!.decision_id, 'archive', '--once'], {
      ...env,
      HANDOFF_CRASH_AT: point,
    });
    expect(killed.signal).toBe('SIGKILL');

    // Another process answers what still waits; the last answer resumes the run.
    const left = await cliJson<Pending[]>(['pending'], env);
    expect(left.length).toBeGreaterThanOrEqual(3); // the first answer was saved, the second never given
    const rest = await runCli(
      ['decide', ...left.map((p) => p.decision_id), 'archive', '--once', '--json'],
      env,
    );
    expect(rest.code).toBe(0);
    expect(rest.stderr).not.toMatch(/^handoff:/m); // every answer taken (the completion notice prints there)
    expect(await cliJson(['pending'], env)).toEqual([]);
    const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
    expect(runs.find((r) => r.run_id === runId)?.status).toBe('completed');

    const audit = await cliJson<AuditRow[]>(['audit', '--run', runId], env);
    const entries = audit.filter((e) => e.item_id !== null);
    expect(entries.map((e) => e.item_id).sort()).toEqual(pending.map((p) => p.item_id).sort()); // once each
    const acted = entries.filter((e) => e.outcome === 'acted');
    // Only the item the kill interrupted mid-action may be failed (to check by hand), never acted twice.
    expect(entries.filter((e) => e.outcome !== 'acted').map((e) => e.item_id)).toEqual(
      ['carry-out:claimed', 'carry-out:performed'].includes(point) ? [a!.item_id] : [],
    );
    // Every message is in exactly one place; each acted one was moved once.
    const archived = await files(path.join(maildir, '.Archive', 'cur'));
    const inbox = await files(path.join(maildir, 'new'));
    expect(archived.length + inbox.length).toBe(4);
    expect(archived.length).toBe(acted.length + (point === 'carry-out:performed' ? 1 : 0));
    const stats = await cliJson<{ overall: { acted: number; by_you: number; failed: number } }>(
      ['stats'],
      env,
    );
    expect(stats.overall).toMatchObject({
      acted: acted.length,
      by_you: acted.length,
      failed: 4 - acted.length,
    });
  },
);

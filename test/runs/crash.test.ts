import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { cliJson, runCli } from '../support/cli.ts';
import { cliWorkspace, mail, NEWSLETTER } from '../support/engine-fixture.ts';

interface AuditRow {
  run_id: string;
  item_id: string | null;
  outcome: string;
  action: string | null;
}

function crashRun(env: Record<string, string>): Promise<NodeJS.Signals | null> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/crash-mid-run.ts')],
    {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    },
  );
  return new Promise((resolve) => child.on('close', (_code, signal) => resolve(signal)));
}

it('a run killed mid-batch acts on nothing it deferred and nothing twice once started again', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-crash-', [
    mail(NEWSLETTER),
    mail({ from: 'jo@partner.example', subject: 'Unsure partnership' }),
    mail({ from: 'qa@customer.example', subject: 'Bug: crash on save' }),
    mail({ from: 'billing@shop.example', subject: 'Your receipt for order 1234' }),
    mail({ from: 'tomi@fastmail.example', subject: 'Following up' }),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);

  expect(await crashRun(env)).toBe('SIGKILL');
  const crashedRun = (await cliJson<{ run_id: string; status: string }[]>(['runs'], env))[0]!;
  const crashedAudit = await cliJson<AuditRow[]>(['audit', '--run', crashedRun.run_id], env);
  const actedBeforeCrash = crashedAudit.filter((e) => e.outcome === 'acted').map((e) => e.item_id);
  expect(actedBeforeCrash).toHaveLength(4); // every confident item; the unsure one was only set aside
  expect(await cliJson(['pending'], env)).toEqual([]); // nothing was asked: the interrupt was never saved

  // Start again: the dead run is noticed and the rest of the inbox is worked.
  const second = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs.find((r) => r.run_id === crashedRun.run_id)?.status).toBe('failed');
  expect(second.run_id).not.toBe(crashedRun.run_id);

  const audit = await cliJson<AuditRow[]>(['audit'], env);
  const acted = audit.filter((e) => e.outcome === 'acted').map((e) => e.item_id);
  expect(new Set(acted).size).toBe(acted.length); // no item acted twice
  const unsure = (await cliJson<{ item_id: string; subject: string }[]>(['pending'], env)).find((p) =>
    p.subject.includes('Unsure'),
  );
  expect(unsure).toBeDefined(); // asked again, never acted
  expect(acted).not.toContain(unsure!.item_id);
  expect(await fs.readdir(path.join(maildir, '.Archive', 'cur'))).toHaveLength(
    acted.filter(Boolean).length - 1,
  );
  await fs.rm(dir, { recursive: true, force: true });
});

it('an action whose process is killed right after it still has its audit entry, once', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-crash-audit-', [mail(NEWSLETTER)]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);

  const killed = await runCli(['run', 'inbox'], { ...env, HANDOFF_CRASH_AT: 'carry-out:half-recorded' });
  expect(killed.signal).toBe('SIGKILL');
  expect(await fs.readdir(path.join(maildir, '.Archive', 'cur'))).toHaveLength(1); // the action was done

  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env); // notices the dead run
  expect(runs[0]?.status).toBe('failed');
  const audit = await cliJson<AuditRow[]>(['audit', '--run', runs[0]!.run_id], env);
  const entries = audit.filter((e) => e.item_id !== null);
  expect(entries).toEqual([expect.objectContaining({ outcome: 'acted', action: 'archive' })]);

  // A later run neither redoes it nor records it again.
  await cliJson(['run', 'inbox'], env);
  const all = await cliJson<AuditRow[]>(['audit'], env);
  expect(all.filter((e) => e.item_id !== null)).toHaveLength(1);
  expect(await fs.readdir(path.join(maildir, '.Archive', 'cur'))).toHaveLength(1);
  await fs.rm(dir, { recursive: true, force: true });
});

it('a run killed after its page was claimed and before it was recorded acts on nothing, then or later', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-crash-claimed-', [
    mail(NEWSLETTER),
    mail({ from: 'billing@shop.example', subject: 'Your receipt for order 1234' }),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  const killed = await runCli(['run', 'inbox'], { ...env, HANDOFF_CRASH_AT: 'carry-out:claimed' });
  expect(killed.signal).toBe('SIGKILL');
  const archive = path.join(maildir, '.Archive', 'cur');
  const archived = async () => (await fs.readdir(archive).catch(() => [])).length;
  expect(await archived()).toBe(0); // claimed, nothing done

  // The dead run's claims are recovered as failed, never acted; no later run acts on them.
  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs[0]?.status).toBe('failed');
  await cliJson(['run', 'inbox'], env);
  const audit = await cliJson<AuditRow[]>(['audit'], env);
  const entries = audit.filter((e) => e.item_id !== null);
  expect(entries.filter((e) => e.outcome === 'acted')).toEqual([]);
  expect(entries.length).toBeGreaterThan(0);
  expect(entries.every((e) => e.outcome === 'failed' && e.run_id === runs[0]!.run_id)).toBe(true);
  expect(await archived()).toBe(0);
  await fs.rm(dir, { recursive: true, force: true });
});

it('a run failed by crash recovery tells the person once, even when two commands recover it at once', async () => {
  const { dir, workflowFile } = await cliWorkspace('handoff-crash-notice-', [mail(NEWSLETTER)]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state'), NOTIFY_CHANNEL: 'console' };
  await cliJson(['workflows', 'add', workflowFile], env);
  const killed = await runCli(['run', 'inbox'], { ...env, HANDOFF_CRASH_AT: 'carry-out:half-recorded' });
  expect(killed.signal).toBe('SIGKILL');

  const [first, second] = await Promise.all([runCli(['runs'], env), runCli(['runs'], env)]);
  expect([first!.code, second!.code]).toEqual([0, 0]);
  const [run] = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(run?.status).toBe('failed');
  const notices = `${first!.stderr}${second!.stderr}`
    .split('\n')
    .filter((line) => line.includes(`run ${run!.run_id} failed:`));
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatch(/the process running it stopped before it finished; .* — \S+\/runs\//);
  await fs.rm(dir, { recursive: true, force: true });
});

it('a run whose last answer was saved by a killed `decide` is resumed by the next command', async () => {
  const { dir, maildir, workflowFile } = await cliWorkspace('handoff-crash-decide-', [
    mail({ from: 'jo@synergia.example', subject: 'Strategic partnership opportunity' }),
    mail({ from: 'tomi@fastmail.example', subject: 'Following up' }),
  ]);
  const env = { HANDOFF_STATE_DIR: path.join(dir, 'state') };
  await cliJson(['workflows', 'add', workflowFile], env);
  const run = await cliJson<{ run_id: string; status: string }>(['run', 'inbox'], env);
  expect(run.status).toBe('waiting');
  const pending = await cliJson<{ decision_id: string }[]>(['pending'], env);
  expect(pending.length).toBeGreaterThanOrEqual(1);

  for (const p of pending.slice(0, -1)) await cliJson(['decide', p.decision_id, 'archive'], env);
  const last = pending.at(-1)!.decision_id;
  const killed = await runCli(['decide', last, 'archive'], { ...env, HANDOFF_CRASH_AT: 'decide:answered' });
  expect(killed.signal).toBe('SIGKILL');

  const runs = await cliJson<{ run_id: string; status: string }[]>(['runs'], env);
  expect(runs).toEqual([expect.objectContaining({ run_id: run.run_id, status: 'completed' })]);
  const audit = await cliJson<(AuditRow & { decided_by: string | null })[]>(
    ['audit', '--run', run.run_id],
    env,
  );
  const human = audit.filter((e) => e.decided_by === 'human');
  expect(human.map((e) => e.outcome)).toEqual(pending.map(() => 'acted'));
  expect(await fs.readdir(path.join(maildir, '.Archive', 'cur'))).toHaveLength(pending.length);
  await fs.rm(dir, { recursive: true, force: true });
});

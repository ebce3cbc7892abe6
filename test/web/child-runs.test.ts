/**
 * `handoff start` works each run in a child process: the server keeps answering while a
 * 1,000-item run is worked, the run page streams the child's events, and a child killed
 * mid-run leaves a run that crash recovery adopts at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { auditOfRun } from '../../shared/audit/audit.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { isAlive } from '../../shared/config/processes.ts';
import { pendingOfRun } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import type { Run } from '../../shared/records/runs.ts';
import { writeMaildir, type MessageSpec } from '../../shared/sources/maildir/generate.ts';
import { childEnv } from '../support/child-env.ts';
import { waitFor } from './support.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/handoff.js');
const API_KEY = 'child-runs-key-0123456789';

function inbox(count: number): MessageSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    from: i % 2 ? `billing${i % 9}@shop.example` : 'digest@weekly.example',
    to: 'alex.morgan@northwind.example',
    subject: i % 2 ? `Your receipt #${i}: order total charged` : `This week in infra #${i}`,
    body: i % 2 ? `Receipt total $${i}.00 charged to your card.` : 'Your weekly newsletter.',
    ...(i % 2 ? {} : { listUnsubscribe: `<https://weekly.example/u?id=${i}>` }),
    date: new Date(Date.UTC(2026, 0, 1, 6, 0, i)),
    messageId: `<child-${i}@run.example>`,
  }));
}

let dir: string;
let server: ChildProcess | undefined;
let url: string;
let stderr = '';

async function startServer(vars: Record<string, string> = {}): Promise<void> {
  server = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
    env: childEnv({
      HANDOFF_STATE_DIR: path.join(dir, 'state'),
      HANDOFF_API_KEY: API_KEY,
      HANDOFF_MODEL_PROVIDER: 'local',
      ...vars,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  url = await waitFor(
    async () => /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
    60_000,
    `the server to start: ${stderr}`,
  );
}

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${url}${p}`, { ...init, headers: { Authorization: `Bearer ${API_KEY}` } });

const store = () => engineFromEnv(loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state') })).store;

/** The run, read again until `ready` says it is as wanted (`what`: what is waited for). */
async function runWhen(
  runId: string,
  ready: (run: Run) => boolean | Promise<boolean>,
  what: string,
  ms = 60_000,
): Promise<Run> {
  return waitFor(
    async () => {
      const run = await getRun(store(), runId);
      return (await ready(run)) ? run : undefined;
    },
    ms,
    what,
  );
}

/** Whether a process is stopped (SIGSTOP): its state in /proc is T. */
async function isStopped(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return /^\d+ \(.*\) T /.test(stat);
}

/** The processes `parent` started that are stopped (SIGSTOP), by /proc. */
async function stoppedChildren(parent: number): Promise<number[]> {
  const stopped: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = /^\d+ \(.*\) (\S) (\d+) /.exec(stat);
    if (fields?.[1] === 'T' && Number(fields[2]) === parent) stopped.push(Number(entry));
  }
  return stopped;
}

/** Items a run has dealt with so far, by its counts. */
const dealtWith = (c: Run['counts']) => c.acted + c.deferred + c.declined + c.failed;

async function runNow(): Promise<string> {
  const res = await api('/api/workflows/inbox-triage/runs', { method: 'POST' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { run_id: string }).run_id;
}

/** A server (with `vars`) over a 1,000-message inbox, and the run Run now started there. */
async function thousandItemRun(vars: Record<string, string> = {}): Promise<string> {
  await startServer(vars);
  await writeMaildir(path.join(dir, 'state', 'demo', 'Maildir'), inbox(1000));
  return runNow();
}

/** The run once a child process (not the server) owns it. */
function ownedByChild(runId: string): Promise<Run> {
  return runWhen(runId, (r) => !!r.owner && r.owner.pid !== server!.pid, 'a child to own the run');
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-child-runs-'));
  stderr = '';
});

afterEach(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
  await fs.rm(dir, { recursive: true, force: true });
});

describe('runs in a child process of the local server', () => {
  it('works a 1,000-item run in another process while the server answers /healthz', async () => {
    const runId = await thousandItemRun();
    const owned = await ownedByChild(runId);
    expect(isAlive(owned.owner!.pid)).toBe(true);

    // While the child works the run, the server answers.
    let answeredWhileRunning = 0;
    let run: Run = owned;
    while (run.status === 'running') {
      const health = await fetch(`${url}/healthz`);
      expect(await health.json()).toEqual({ ok: true });
      run = await getRun(store(), runId);
      if (run.status === 'running') answeredWhileRunning += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answeredWhileRunning).toBeGreaterThan(3);
    expect(['waiting', 'completed']).toContain(run.status);
    expect(run.counts.acted).toBeGreaterThan(0);

    // The child's events reached the server's feed: the page's graph is live, not rebuilt.
    const page = await (await fetch(`${url}/runs/${runId}`)).text();
    expect(page).not.toContain('The live feed of this run is gone');
    expect(page).toMatch(/data-node="trigger">[\s\S]*?data-node-state>done/);
    const progress = (await (await fetch(`${url}/runs/${runId}/progress`)).json()) as { status: string };
    expect(progress.status).toBe(run.status);
    await waitFor(async () => (isAlive(owned.owner!.pid) ? undefined : true), 10_000, 'the child to exit');
  }, 180_000);

  it('recovers a run whose child was killed mid-run', async () => {
    const runId = await thousandItemRun();
    const owned = await runWhen(
      runId,
      async (r) =>
        !!r.owner &&
        r.owner.pid !== server!.pid &&
        (await auditOfRun(store(), r)).some((e) => e.outcome === 'acted'),
      'a child to own the run and act',
    );
    process.kill(owned.owner!.pid, 'SIGKILL');
    const failed = await runWhen(runId, (r) => r.status === 'failed', 'the run to be recovered', 20_000);
    expect(failed.error).toContain('the process running it stopped before it finished');
    expect(failed.error).toMatch(/[1-9]\d* items? had been acted on/);
    expect(stderr).toMatch(new RegExp(`the process working run ${runId} .* was stopped \\(SIGKILL\\)`));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 180_000);

  it("shows a running run's counts moving while its child works it", async () => {
    // The child stops itself right after its first progress write: the run is seen mid-way, for sure.
    const runId = await thousandItemRun({ HANDOFF_HOLD_AT: 'run:progress-written' });
    const owned = await ownedByChild(runId);
    const child = owned.owner!.pid;
    await waitFor(
      async () => ((await isStopped(child)) ? true : undefined),
      60_000,
      'the first progress write',
    );

    const progress = (await (await fetch(`${url}/runs/${runId}/progress`)).json()) as {
      status: string;
      counts: Run['counts'];
      summary: string;
    };
    expect(progress.status).toBe('running');
    expect(dealtWith(progress.counts)).toBeGreaterThan(0);
    expect(dealtWith(progress.counts)).toBeLessThan(1000);
    // What the page's live line says: not the zeros it said before the run began.
    expect(progress.summary).not.toMatch(/^0 acted .*, 0 asked, 0 left alone$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    process.kill(child, 'SIGCONT');
    const settled = await runWhen(runId, (r) => r.status !== 'running', 'the run to settle', 120_000);
    expect(dealtWith(settled.counts)).toBeGreaterThan(dealtWith(progress.counts));
  }, 180_000);

  it('resumes a run in a child when its last question is answered, while the server answers', async () => {
    const runId = await thousandItemRun();
    const paused = await runWhen(runId, (r) => r.status !== 'running', 'the run to pause', 120_000);
    expect(paused.status).toBe('waiting');
    const asked = paused.counts.deferred;
    expect(asked).toBeGreaterThan(0);

    // Every question answered at once: the last answer hands the resume to a child.
    const res = await fetch(`${url}/api/runs/${runId}/accept-suggestions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    expect(res.status).toBe(200);
    const results = (await res.json()) as { ok: boolean; run_status?: string }[];
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.at(-1)!.run_status).toBe('running'); // handed over, not worked in the request

    let answeredWhileResuming = 0;
    let run = await getRun(store(), runId);
    const pids = new Set<number>();
    while (run.status === 'running') {
      if (run.owner) pids.add(run.owner.pid);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      answeredWhileResuming += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      run = await getRun(store(), runId);
    }
    expect(run.status).toBe('completed');
    // Every answer carried out (acted on, or left alone as answered), each once.
    const byYou = (await auditOfRun(store(), run)).filter((e) => e.decided_by === 'human' && e.item_id);
    expect(new Set(byYou.map((e) => e.item_id)).size).toBe(asked);
    expect(run.counts.by_you).toBeGreaterThan(0);
    expect(answeredWhileResuming).toBeGreaterThan(0);
    // Worked by another process than the server (a resume child adopts the run it is handed).
    expect([...pids].some((pid) => pid !== server!.pid)).toBe(true);
    expect(stderr).not.toContain('the process working run');
    const page = await (await fetch(`${url}/runs/${runId}`)).text();
    expect(page).not.toContain('The live feed of this run is gone');
  }, 240_000);

  it('recovers a run whose resume child was killed', async () => {
    // Each child stops itself once it owns its run: the resume's child is caught owning it, for sure.
    const runId = await thousandItemRun({ HANDOFF_HOLD_AT: 'run-child:adopted' });
    const first = await ownedByChild(runId);
    await waitFor(
      async () => ((await isStopped(first.owner!.pid)) ? true : undefined),
      30_000,
      'the child to hold',
    );
    process.kill(first.owner!.pid, 'SIGCONT');
    await runWhen(runId, (r) => r.status === 'waiting', 'the run to pause', 120_000);

    const accepted = await fetch(`${url}/api/runs/${runId}/accept-suggestions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    expect(accepted.status).toBe(200);
    const resuming = await runWhen(
      runId,
      (r) => r.status === 'running' && !!r.owner && r.owner.pid !== server!.pid,
      'a child to own the resumed run',
    );
    const child = resuming.owner!.pid;
    await waitFor(
      async () => ((await isStopped(child)) ? true : undefined),
      30_000,
      'the resume child to hold',
    );
    process.kill(child, 'SIGKILL');
    const failed = await runWhen(runId, (r) => r.status === 'failed', 'the run to be recovered', 20_000);
    expect(failed.error).toContain('the process running it stopped before it finished');
    expect(stderr).toMatch(new RegExp(`the process working run ${runId} .* was stopped \\(SIGKILL\\)`));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 240_000);

  it('carries out a batch of answers in a child while their run still waits', async () => {
    // The carrying child stops itself before it acts: the answers are seen handed over, not done.
    const runId = await thousandItemRun({ HANDOFF_HOLD_AT: 'run-child:carrying' });
    const paused = await runWhen(runId, (r) => r.status !== 'running', 'the run to pause', 120_000);
    expect(paused.status).toBe('waiting');
    const waiting = await pendingOfRun(store(), runId);
    expect(waiting.length).toBeGreaterThanOrEqual(3);
    const answered = waiting.slice(0, -1); // one left: the run keeps waiting
    const res = await fetch(`${url}/api/decisions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ answers: answered.map((d) => ({ id: d.id, action: 'archive' })) }),
    });
    expect(res.status).toBe(200);
    const results = (await res.json()) as { ok: boolean; run_status?: string }[];
    expect(results.map((r) => [r.ok, r.run_status])).toEqual(answered.map(() => [true, 'waiting']));

    const byYou = async () =>
      new Set(
        (await auditOfRun(store(), await getRun(store(), runId)))
          .filter((e) => e.decided_by === 'human' && e.item_id)
          .map((e) => e.item_id),
      );
    const [carrier] = await waitFor(
      async () => {
        const stopped = await stoppedChildren(server!.pid!);
        return stopped.length > 0 ? stopped : undefined;
      },
      30_000,
      'the carrying child to hold',
    );
    expect((await byYou()).size).toBe(0); // answered in the request, carried out elsewhere
    process.kill(carrier!, 'SIGCONT');
    await waitFor(
      async () => ((await byYou()).size === answered.length ? true : undefined),
      30_000,
      'the answers to be carried out',
    );
    expect([...(await byYou())].sort()).toEqual(answered.map((d) => d.item_id).sort());
    expect((await getRun(store(), runId)).status).toBe('waiting');
    expect(stderr).not.toContain('not carried out at once');
  }, 240_000);

  it('with HANDOFF_RUNS_IN_THREAD=1 works the run in the server itself', async () => {
    await startServer({ HANDOFF_RUNS_IN_THREAD: '1' });
    const runId = await runNow();
    const run = await runWhen(runId, (r) => r.status !== 'running', 'the run to settle');
    expect(run.status).toBe('waiting'); // the demo asks
    // Never handed to another process: the owner was the server until the run paused.
    const page = await (await fetch(`${url}/runs/${runId}`)).text();
    expect(page).not.toContain('The live feed of this run is gone');
    expect(stderr).not.toContain('the process working run');
  }, 120_000);
});

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

async function runNow(): Promise<string> {
  const res = await api('/api/workflows/inbox-triage/runs', { method: 'POST' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { run_id: string }).run_id;
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
    await startServer();
    await writeMaildir(path.join(dir, 'state', 'demo', 'Maildir'), inbox(1000));
    const runId = await runNow();
    const owned = await waitFor(
      async () => {
        const run = await getRun(store(), runId);
        return run.owner && run.owner.pid !== server!.pid ? run : undefined;
      },
      60_000,
      'a child to own the run',
    );
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
    await startServer();
    await writeMaildir(path.join(dir, 'state', 'demo', 'Maildir'), inbox(1000));
    const runId = await runNow();
    const owned = await waitFor(
      async () => {
        const run = await getRun(store(), runId);
        if (!run.owner || run.owner.pid === server!.pid) return undefined;
        const acted = (await auditOfRun(store(), run)).some((e) => e.outcome === 'acted');
        return acted ? run : undefined;
      },
      60_000,
      'a child to own the run and act',
    );
    process.kill(owned.owner!.pid, 'SIGKILL');
    const failed = await waitFor(
      async () => {
        const run = await getRun(store(), runId);
        return run.status === 'failed' ? run : undefined;
      },
      20_000,
      'the run to be recovered',
    );
    expect(failed.error).toContain('the process running it stopped before it finished');
    expect(failed.error).toMatch(/[1-9]\d* item\(s\) had been acted on/);
    expect(stderr).toMatch(new RegExp(`the process working run ${runId} .* was stopped \\(SIGKILL\\)`));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 180_000);

  it('with HANDOFF_RUNS_IN_THREAD=1 works the run in the server itself', async () => {
    await startServer({ HANDOFF_RUNS_IN_THREAD: '1' });
    const runId = await runNow();
    const run = await waitFor(
      async () => {
        const r = await getRun(store(), runId);
        return r.status === 'running' ? undefined : r;
      },
      60_000,
      'the run to settle',
    );
    expect(run.status).toBe('waiting'); // the demo asks
    // Never handed to another process: the owner was the server until the run paused.
    const page = await (await fetch(`${url}/runs/${runId}`)).text();
    expect(page).not.toContain('The live feed of this run is gone');
    expect(stderr).not.toContain('the process working run');
  }, 120_000);
});

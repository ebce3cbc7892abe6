/**
 * `npm run bench:healthz`: how the local server answers /healthz while it works a 1,000-item
 * run, with runs in a child process (the default of `handoff start`) and in the server's
 * own thread (HANDOFF_RUNS_IN_THREAD=1). Each round: a fresh state dir and a real `handoff
 * start`, 1,000 generated messages, Run now, then /healthz every 10 ms on a kept-alive
 * connection until the run pauses or ends. Prints the medians of each round's p99 (and spread).
 * ROUNDS (default 3) and ITEMS (default 1000) change the size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadEnv } from '../shared/config/env.ts';
import { getRun } from '../shared/runs/run-repository.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import { generateInbox } from './generate-mail.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ITEMS = Number(process.env.ITEMS ?? 1000);
const KEY = 'bench-healthz-key-0123456789';
const BIN = path.resolve(import.meta.dirname, '../bin/handoff.js');

interface Round {
  p50: number;
  p99: number;
  max: number;
  polls: number;
  failures: number;
  runMs: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function start(stateDir: string, inThread: boolean): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HANDOFF_STATE_DIR: stateDir,
      HANDOFF_API_KEY: KEY,
      HANDOFF_MODEL_PROVIDER: 'local',
      ...(inThread ? { HANDOFF_RUNS_IN_THREAD: '1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.resume();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (url) return { child, url };
    if (Date.now() > deadline) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function healthz(url: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(String(res.statusCode))),
      );
    });
    req.on('error', reject);
  });
}

async function round(inThread: boolean): Promise<Round> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-bench-healthz-'));
  const stateDir = path.join(dir, 'state');
  const { child, url } = await start(stateDir, inThread);
  try {
    await writeMaildir(path.join(stateDir, 'demo', 'Maildir'), generateInbox(ITEMS).messages);
    const store = engineFromEnv(loadEnv({ HANDOFF_STATE_DIR: stateDir })).store;
    await healthz(url); // the kept-alive connection, opened before the run
    const t0 = performance.now();
    const res = await fetch(`${url}/api/workflows/inbox-triage/runs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}` },
    });
    const { run_id } = (await res.json()) as { run_id: string };
    const times: number[] = [];
    let failures = 0;
    let checked = 0;
    for (;;) {
      try {
        times.push(await healthz(url));
      } catch {
        failures += 1;
      }
      if (performance.now() - checked > 100) {
        checked = performance.now();
        if ((await getRun(store, run_id)).status !== 'running') break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const runMs = performance.now() - t0;
    const sorted = [...times].sort((a, b) => a - b);
    return {
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? NaN,
      polls: times.length,
      failures,
      runMs,
    };
  } finally {
    child.kill('SIGKILL');
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(`/healthz during a ${ITEMS}-item run, ${ROUNDS} rounds per mode (${os.cpus().length} CPUs)\n`);
  console.log('| mode | p50 | p99 (median, min–max) | max (median) | polls | failed | run to pause |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, inThread] of [
    ['child process', false],
    ['in-thread', true],
  ] as const) {
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(inThread));
    const p99s = rounds.map((r) => r.p99);
    console.log(
      `| ${name} | ${ms(median(rounds.map((r) => r.p50)))} | ${ms(median(p99s))} (${ms(Math.min(...p99s))}–${ms(Math.max(...p99s))}) | ${ms(median(rounds.map((r) => r.max)))} | ${median(rounds.map((r) => r.polls))} | ${rounds.reduce((n, r) => n + r.failures, 0)} | ${(median(rounds.map((r) => r.runMs)) / 1000).toFixed(1)} s |`,
    );
  }
  agent.destroy();
}

await main();

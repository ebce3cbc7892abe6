/**
 * `npm run bench:healthz`: how the local server answers /healthz while it works a 1,000-item
 * run, with runs in a child process (the default of `handoff start`) and in the server's
 * own thread (HANDOFF_RUNS_IN_THREAD=1). Each round: a fresh state dir and a real `handoff
 * start`, 1,000 generated messages, Run now, then /healthz every 10 ms on a kept-alive
 * connection until the run pauses or ends. Prints the medians of each round's p99 (and spread).
 *
 * Then the resume: the same inbox with the workflow's threshold at 1, so the run asks about
 * every item; once it waits, every question is answered (`POST /api/runs/RUN/accept-suggestions`,
 * the rest skipped through `POST /api/decisions`) and /healthz is timed from the first answer
 * until the resumed run ends, in two windows: while the answers are taken (a request, in the
 * server's thread in both modes) and from the moment the run is running again (its last answer
 * taken) until it ends: the resume, in a child or in the server's thread.
 * ROUNDS (default 3) and ITEMS (default 1000) change the size; PHASES (`run,resume`) and
 * MODES (`child,in-thread`) pick.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadEnv } from '../shared/config/env.ts';
import { pendingOfRun } from '../shared/runs/decision-repository.ts';
import { getRun } from '../shared/runs/run-repository.ts';
import { engineFromEnv } from '../shared/runs/wire.ts';
import { demoWorkflowYaml } from '../shared/sources/maildir/demo.ts';
import { writeMaildir } from '../shared/sources/maildir/generate.ts';
import type { Store } from '../shared/store/store.ts';
import { parseWorkflow } from '../shared/workflows/load.ts';
import { saveWorkflow } from '../shared/workflows/repository.ts';
import { generateInbox } from './generate-mail.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ITEMS = Number(process.env.ITEMS ?? 1000);
const PHASES = new Set((process.env.PHASES ?? 'run,resume').split(','));
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
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 }); // a child may still be writing
  }
}

/** POSTs `body` (JSON) with the key, however long the answer takes; resolves with the status. */
function post(url: string, pathname: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${pathname}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** /healthz times, each with what the server was doing when it was asked. */
interface Poller {
  phase: string;
  stop(): Promise<{ phase: string; ms: number }[]>;
  failures: number;
}

/** Asks /healthz every 10 ms (one at a time, kept alive) until stopped, tagging each time with `phase`. */
function poll(url: string, phase: string): Poller {
  const times: { phase: string; ms: number }[] = [];
  let stopped = false;
  const poller: Poller = {
    phase,
    failures: 0,
    async stop() {
      stopped = true;
      await loop;
      return times;
    },
  };
  const loop = (async () => {
    while (!stopped) {
      const phaseNow = poller.phase;
      try {
        times.push({ phase: phaseNow, ms: await healthz(url) });
      } catch {
        poller.failures += 1;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return poller;
}

async function settled(store: Store, runId: string, status: (s: string) => boolean): Promise<string> {
  for (;;) {
    // A read that meets the record mid-replace (another process writing it) is read again.
    const now = await getRun(store, runId).then(
      (run) => run.status,
      () => null,
    );
    if (now !== null && status(now)) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface ResumeRound {
  questions: number;
  answering: Round;
  resuming: Round;
  status: string;
}

function summary(times: number[], failures: number, runMs: number): Round {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? NaN,
    polls: times.length,
    failures,
    runMs,
  };
}

async function resumeRound(inThread: boolean): Promise<ResumeRound> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-bench-healthz-'));
  const stateDir = path.join(dir, 'state');
  const { child, url } = await start(stateDir, inThread);
  const auth = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
  try {
    const maildir = path.join(stateDir, 'demo', 'Maildir');
    await writeMaildir(maildir, generateInbox(ITEMS).messages);
    const store = engineFromEnv(loadEnv({ HANDOFF_STATE_DIR: stateDir })).store;
    // Threshold 1: the run asks about every item it does not leave alone.
    const yaml = demoWorkflowYaml(maildir).replace(/confidence_threshold: [\d.]+/, 'confidence_threshold: 1');
    await saveWorkflow(store, parseWorkflow(yaml, 'inbox-triage.yaml'));
    const res = await fetch(`${url}/api/workflows/inbox-triage/runs`, { method: 'POST', headers: auth });
    const { run_id } = (await res.json()) as { run_id: string };
    const paused = await settled(store, run_id, (s) => s !== 'running');
    if (paused !== 'waiting') throw new Error(`the run did not wait for answers (${paused})`);
    const questions = (await pendingOfRun(store, run_id)).length;

    await healthz(url); // the kept-alive connection, opened before the answers
    const poller = poll(url, 'answering');
    // The run resumes once its last question is answered: in the request's thread, or in a child.
    let t1 = NaN;
    const resumed = settled(store, run_id, (s) => s !== 'waiting').then(() => {
      t1 = performance.now();
      poller.phase = 'resuming';
    });
    const t0 = performance.now();
    await post(url, `/api/runs/${run_id}/accept-suggestions`); // minutes in-thread: no client timeout
    // What bulk acceptance leaves (irreversible suggestions) is skipped, 500 answers a request.
    for (
      let left = await pendingOfRun(store, run_id);
      left.length > 0;
      left = await pendingOfRun(store, run_id)
    ) {
      const answers = left.slice(0, 500).map((d) => ({ id: d.id, action: 'skip' }));
      await post(url, '/api/decisions', { answers });
    }
    await resumed;
    const status = await settled(store, run_id, (s) => s !== 'running' && s !== 'waiting');
    const t2 = performance.now();
    const times = await poller.stop();
    const of = (phase: string) => times.filter((t) => t.phase === phase).map((t) => t.ms);
    return {
      questions,
      answering: summary(of('answering'), 0, t1 - t0),
      resuming: summary(of('resuming'), poller.failures, t2 - t1),
      status,
    };
  } finally {
    child.kill('SIGKILL');
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 }); // a child may still be writing
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** One table row: medians over the rounds, the p99's spread. */
function row(name: string, rounds: Round[], extra: string[] = []): string {
  const p99s = rounds.map((r) => r.p99);
  return `| ${[
    name,
    ...extra,
    ms(median(rounds.map((r) => r.p50))),
    `${ms(median(p99s))} (${ms(Math.min(...p99s))}–${ms(Math.max(...p99s))})`,
    ms(median(rounds.map((r) => r.max))),
    String(median(rounds.map((r) => r.polls))),
    String(rounds.reduce((n, r) => n + r.failures, 0)),
    `${(median(rounds.map((r) => r.runMs)) / 1000).toFixed(1)} s`,
  ].join(' | ')} |`;
}

const MODES = (
  [
    ['child process', false],
    ['in-thread', true],
  ] as const
).filter(([name]) => !process.env.MODES || process.env.MODES.split(',').includes(name.split(' ')[0]!));

async function main(): Promise<void> {
  console.log(`${ROUNDS} rounds per mode, ${ITEMS} messages (${os.cpus().length} CPUs)\n`);
  if (PHASES.has('run')) {
    console.log(`/healthz during a ${ITEMS}-item run\n`);
    console.log('| mode | p50 | p99 (median, min–max) | max (median) | polls | failed | run to pause |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, inThread] of MODES) {
      const rounds: Round[] = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await round(inThread));
      console.log(row(name, rounds));
    }
  }
  if (PHASES.has('resume')) {
    console.log(`\n/healthz while every question of a run is answered, then while the run resumes\n`);
    console.log(
      '| mode | window | questions | p50 | p99 (median, min–max) | max (median) | polls | failed | window length |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [name, inThread] of MODES) {
      const rounds: ResumeRound[] = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await resumeRound(inThread));
      const questions = String(median(rounds.map((r) => r.questions)));
      const ended = [...new Set(rounds.map((r) => r.status))].join('/');
      console.log(
        row(
          name,
          rounds.map((r) => r.answering),
          ['answering', questions],
        ),
      );
      console.log(
        row(
          name,
          rounds.map((r) => r.resuming),
          [`resuming (ended ${ended})`, questions],
        ),
      );
    }
  }
  agent.destroy();
}

await main();

import { promises as fs } from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { waitFor } from '../support/wait-for.ts';
import { main } from '../../shared/cli/program.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import type { Env } from '../../shared/config/env.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { getWorkflow, listWorkflows } from '../../shared/workflows/repository.ts';
import { serve, type RunningServer } from '../../shared/web/serve.ts';
import { API_KEY, makeEngine, readSse } from './support.ts';

let dir: string;
let env: Env;
let engine: EngineDeps;
let server: RunningServer | undefined;
let printed: string;

beforeEach(async () => {
  ({ dir, env, engine } = await makeEngine());
  printed = '';
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

const start = async (overrides: Partial<Env> = {}) => {
  server = await serve({
    env: { ...env, ...overrides },
    engine,
    port: 0,
    print: (text) => (printed += text),
  });
  return server;
};

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
}

describe('serve()', () => {
  it('creates the demo on an empty state, binds 127.0.0.1 only, and serves a real run end to end', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(url).port);
    expect(port).toBeGreaterThan(0);

    // First start: the demo workflow and its Maildir exist, and the next steps are printed.
    const workflow = await getWorkflow(engine.store, 'inbox-triage');
    expect(workflow.source).toMatchObject({ type: 'maildir', path: `${env.HANDOFF_STATE_DIR}/demo/Maildir` });
    expect((await fs.readdir(`${env.HANDOFF_STATE_DIR}/demo/Maildir/new`)).length).toBeGreaterThan(0);
    for (const line of [
      'npx handoff run inbox-triage',
      'npx handoff pending',
      'npx handoff decide ID ACTION --note',
      url,
    ])
      expect(printed).toContain(line);
    const key = /export HANDOFF_API_KEY=(\S+)/.exec(printed)?.[1];
    expect(key).toMatch(/^[\w-]{32}$/);

    // The generated key opens the API; nothing else does.
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${url}/api/pending`)).status).toBe(401);
    const auth = { Authorization: `Bearer ${key}` };
    const started = await fetch(`${url}/api/workflows/inbox-triage/runs`, { method: 'POST', headers: auth });
    expect(started.status).toBe(202);
    const { run_id } = (await started.json()) as { run_id: string };

    const events = await fetch(`${url}/events/${run_id}?key=${key}`);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { events: seen } = await readSse(
      events.body!,
      (e) => e.event === 'asked' || e.event === 'completed',
    );
    expect(seen.at(-1)?.event).toBe('asked');
    const summary = await (await fetch(`${url}/api/runs/${run_id}`, { headers: auth })).json();
    expect(summary).toMatchObject({ run_id, status: 'waiting' });

    // Loopback only: the same port on an external address is not listening.
    const external = externalAddress();
    if (external) await expect(fetch(`http://${external}:${port}/healthz`)).rejects.toThrow();
  });

  it('keeps an existing state: no second demo, and a configured key is not printed', async () => {
    await start();
    await server!.close();
    printed = '';
    await start({ HANDOFF_API_KEY: API_KEY });
    expect(printed).not.toContain('Created the demo');
    expect(printed).not.toContain(API_KEY);
    expect(printed).toContain('HANDOFF_API_KEY');
    expect((await listWorkflows(engine.store)).map((w) => w.id)).toEqual(['inbox-triage']);
    const res = await fetch(`${server!.url}/api/workflows`, {
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    expect(res.status).toBe(200);
  });

  it('close() finishes while an event stream is still open', async () => {
    const { url } = await start({ HANDOFF_API_KEY: API_KEY });
    const started = await fetch(`${url}/api/workflows/inbox-triage/runs`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    const { run_id } = (await started.json()) as { run_id: string };
    const stream = await fetch(`${url}/events/${run_id}?key=${API_KEY}`);
    expect(stream.status).toBe(200);
    await server!.close();
    server = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect((await getRun(engine.store, run_id)).status).toBe('waiting'); // close() waited for the run
    await stream.body?.cancel().catch(() => undefined);
  });

  it('refuses to bind anything but loopback', async () => {
    await expect(serve({ env, engine, port: 0, host: '0.0.0.0', print: () => {} })).rejects.toThrow(
      /loopback only/,
    );
  });
});

describe('handoff start', () => {
  const BIN = fileURLToPath(new URL('../../bin/handoff.js', import.meta.url));

  it('serves until SIGTERM, then stops gracefully with exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
      env: {
        ...process.env,
        HANDOFF_STATE_DIR: env.HANDOFF_STATE_DIR,
        HANDOFF_API_KEY: API_KEY,
        HANDOFF_MODEL_PROVIDER: 'local',
        USE_DYNAMODB: 'false',
        PORT: '1', // --port wins over PORT
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await waitFor(
      () => {
        const found = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (!found) throw new Error(`not started yet: ${err}`);
        return found;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(err).toContain('handoff: stopped');
  });

  it('refuses a bad --port before touching any state', async () => {
    let err = '';
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      err += String(chunk);
      return true;
    });
    try {
      expect(await main(['node', 'handoff', 'start', '--port', '80x'])).toBe(1);
    } finally {
      write.mockRestore();
    }
    expect(err).toBe('handoff: --port 80x is not a port (0-65535)\n');
  });
});

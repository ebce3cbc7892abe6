/** Shared setup for the web tests: a temp state dir, a quiet engine and the demo workflow. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { loadEnv, type Env } from '../../shared/config/env.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { engineFromEnv } from '../../shared/runs/wire.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import type { Workflow } from '../../shared/workflows/schema.ts';
import { createApp } from '../../shared/web/app.ts';
import { createRunLauncher, type RunLauncher } from '../../shared/web/run-launcher.ts';

export const API_KEY = 'test-api-key-0123456789';
export const WEBHOOK_SECRET = 'test-webhook-secret';

export interface Harness {
  dir: string;
  env: Env;
  engine: EngineDeps;
  launcher: RunLauncher;
  app: Hono;
  workflow: Workflow;
  /** Headers with the right bearer token (plus any extra). */
  auth(extra?: Record<string, string>): Record<string, string>;
  cleanup(): Promise<void>;
}

/** A temp dir with an engine built from the environment (quiet notifier). */
export async function makeEngine(
  vars: Record<string, string> = {},
): Promise<{ dir: string; env: Env; engine: EngineDeps }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-web-'));
  const env = loadEnv({ HANDOFF_STATE_DIR: path.join(dir, 'state'), ...vars });
  const engine = engineFromEnv(env, { notifier: { notify: async () => {} } });
  return { dir, env, engine };
}

/** Writes the demo Maildir into `dir` and saves the inbox-triage workflow (optionally changed). */
export async function addDemoWorkflow(
  engine: EngineDeps,
  dir: string,
  change: Partial<Workflow> = {},
): Promise<Workflow> {
  const maildir = path.join(dir, `Maildir-${change.id ?? 'inbox-triage'}`);
  await createDemoMaildir(maildir);
  const workflow = { ...parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml'), ...change };
  await saveWorkflow(engine.store, workflow);
  return workflow;
}

/** The app over a fresh engine with the demo workflow; API key and webhook secret set unless overridden. */
export async function makeHarness(vars: Record<string, string> = {}): Promise<Harness> {
  const { dir, env, engine } = await makeEngine({
    HANDOFF_API_KEY: API_KEY,
    HANDOFF_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...vars,
  });
  const workflow = await addDemoWorkflow(engine, dir);
  const launcher = createRunLauncher(engine);
  const app = createApp({ engine, env, runner: launcher });
  return {
    dir,
    env,
    engine,
    launcher,
    app,
    workflow,
    auth: (extra = {}) => ({ Authorization: `Bearer ${API_KEY}`, ...extra }),
    cleanup: async () => {
      await launcher.idle();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or `ms` pass. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface SseEvent {
  event: string;
  id: string;
  data: string;
}

/**
 * Reads an SSE body until an event satisfies `stop` (or `ms` pass), then cancels the
 * stream; returns every event read and the raw text (comments included).
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  stop: (e: SseEvent) => boolean,
  ms = 10_000,
): Promise<{ events: SseEvent[]; text: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let text = '';
  let buffered = '';
  const timeout = setTimeout(() => void reader.cancel(), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done)
        throw new Error(
          `stream ended before the expected event; got: ${events.map((e) => e.event).join(',')}`,
        );
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const field = (name: string) =>
          frame
            .split('\n')
            .filter((l) => l.startsWith(`${name}: `))
            .map((l) => l.slice(name.length + 2))
            .join('\n');
        if (!frame.includes('data: ')) continue; // a comment
        const event = { event: field('event'), id: field('id'), data: field('data') };
        events.push(event);
        if (stop(event)) return { events, text };
      }
    }
  } finally {
    clearTimeout(timeout);
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The local server (`handoff start`): the app on loopback, the scheduler, and a
 * ready-to-try demo on first start.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve as serveNode } from '@hono/node-server';
import type { Env } from '../config/env.ts';
import { InvalidInputError } from '../errors/index.ts';
import type { EngineDeps } from '../runs/deps.ts';
import { createDemoMaildir, demoWorkflowYaml } from '../sources/maildir/demo.ts';
import { readStoredSettings } from '../settings/settings.ts';
import { parseWorkflow } from '../workflows/load.ts';
import { listWorkflows, saveWorkflow } from '../workflows/repository.ts';
import { createApp } from './app.ts';
import { createChildRunLauncher, workInChildren } from './child-run-launcher.ts';
import { createRunLauncher, type RunLauncher } from './run-launcher.ts';
import { startScheduler } from './scheduler.ts';
import { startWorkspaceSchedulers } from './workspace-schedulers.ts';
import type { Platform } from '../workspaces/platform.ts';
import { pathExists } from '../config/files.ts';
import { clearServerAddress, recordServerAddress } from '../config/server-address.ts';

/** Hosts the local server may bind to: it speaks plain HTTP, so loopback only. */
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Options of {@link serve}. */
export interface ServeOptions {
  env: Env;
  engine: EngineDeps;
  /** 0 picks a free port; the real one is in the returned url. */
  port: number;
  /** Loopback only; default 127.0.0.1. */
  host?: string;
  /** Where the "what to do next" block goes (default stdout). */
  print?: (text: string) => void;
  /** Every workspace (the CLI's); without it the server serves `engine`'s workspace alone. */
  platform?: Platform;
  /**
   * Where runs are worked: `child`, a process per run built from the environment (`handoff
   * start`: the server keeps answering during a long run); `thread` (default), in this process
   * with the engines given (an injected model or notifier cannot cross into a child).
   */
  runs?: 'thread' | 'child';
}

/** A running local server. */
export interface RunningServer {
  url: string;
  /** Stops the scheduler, waits for in-flight requests and runs, then closes the server. */
  close(): Promise<void>;
}

/** Starts the local server: API + status page, scheduler, and the demo on an empty state. */
export async function serve(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new InvalidInputError(`the local server binds to loopback only (127.0.0.1), not "${host}"`);
  const print = opts.print ?? ((text: string) => process.stdout.write(text));
  const generatedKey = opts.env.HANDOFF_API_KEY ? null : randomBytes(24).toString('base64url');
  const env: Env = { ...opts.env, HANDOFF_API_KEY: opts.env.HANDOFF_API_KEY || generatedKey || undefined };
  const demo = await createDemoIfEmpty(opts.engine, env);

  let launcher: RunLauncher;
  if (opts.runs === 'child') {
    const children = createChildRunLauncher(opts.engine);
    // A run resumed by an answer (or the sweep), and a batch of answers to carry out while
    // their runs wait, are worked in a child too, not in the request.
    workInChildren(opts.engine, children);
    opts.platform?.configure((engine) => workInChildren(engine, children));
    launcher = children;
  } else launcher = createRunLauncher(opts.engine);
  let url = '';
  const uiBaseUrlDefault = () => opts.env.UI_BASE_URL ?? url;
  const app = createApp({
    engine: opts.engine,
    env,
    runner: launcher,
    uiBaseUrlDefault,
    platform: opts.platform,
  });
  const requests = new Set<Promise<unknown>>();
  const server = serveNode({
    hostname: host,
    port: opts.port,
    fetch: (request, bindings) => {
      const answer = Promise.resolve(app.fetch(request, bindings));
      // Track request work (not SSE streams, which end only with the client) for a graceful close.
      if (!isEventStream(new URL(request.url).pathname)) {
        requests.add(answer);
        void answer.finally(() => requests.delete(answer)).catch(() => undefined);
      }
      return answer;
    },
  });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new InvalidInputError(`cannot listen on ${host}:${opts.port}: ${error.code ?? error.message}`)),
    );
    server.once('listening', () => resolve(server.address() as AddressInfo));
  });
  url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  // Links point at the Settings page's UI base URL, else UI_BASE_URL, else this server.
  const stored = await readStoredSettings(opts.engine.store);
  opts.engine.settings.uiBaseUrl = stored?.ui_base_url ?? uiBaseUrlDefault();
  opts.platform?.configure((engine) => {
    if (engine !== opts.engine) engine.settings.uiBaseUrl = uiBaseUrlDefault();
  });
  if (!opts.env.USE_DYNAMODB) recordServerAddress(opts.env.HANDOFF_STATE_DIR, url);
  const scheduler = opts.platform
    ? startWorkspaceSchedulers(opts.platform, launcher)
    : startScheduler(opts.engine, launcher);
  print(nextSteps(url, demo, generatedKey));

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        scheduler.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        while (requests.size > 0) await Promise.allSettled([...requests]);
        await scheduler.idle();
        await launcher.idle();
        if ('closeAllConnections' in server) server.closeAllConnections(); // open event streams
        await closed;
        clearServerAddress(opts.env.HANDOFF_STATE_DIR);
      })();
      return closing;
    },
  };
}

/** The API's `/events/:runId` and the inspector's `/runs/:id/events`. */
function isEventStream(pathname: string): boolean {
  return pathname.startsWith('/events/') || /^\/(runs|chat)\/[^/]+\/events$/.test(pathname);
}

/** On an empty store, writes the demo Maildir and saves the inbox-triage workflow; returns its path or null. */
async function createDemoIfEmpty(engine: EngineDeps, env: Env): Promise<string | null> {
  if ((await listWorkflows(engine.store)).length > 0) return null;
  const maildir = path.join(env.HANDOFF_STATE_DIR, 'demo', 'Maildir');
  if (!(await pathExists(maildir))) await createDemoMaildir(maildir); // kept from an earlier demo: not written twice
  await saveWorkflow(engine.store, parseWorkflow(demoWorkflowYaml(maildir), 'inbox-triage.yaml'));
  return maildir;
}

/** The "what to do next" block printed at start. */
function nextSteps(url: string, demoMaildir: string | null, generatedKey: string | null): string {
  const key = generatedKey
    ? [
        `HANDOFF_API_KEY is not set, so this process made one up (valid until it stops):`,
        `  export HANDOFF_API_KEY=${generatedKey}`,
      ]
    : ['The API expects your HANDOFF_API_KEY as a bearer token.'];
  const lines = [
    '',
    `Handoff is running at ${url}`,
    ...(demoMaildir ? [`Created the demo: workflow inbox-triage on the Maildir at ${demoMaildir}`] : []),
    '',
    'What to do next:',
    `  open ${url} in a browser: press Run now, then answer what it asks`,
    '  npx handoff run inbox-triage                     # triage the inbox now',
    '  npx handoff pending                              # the questions waiting for you',
    '  npx handoff decide ID ACTION --note "why"        # answer one; the run resumes when all are answered',
    '',
    ...key,
    `  curl -X POST -H "Authorization: Bearer $HANDOFF_API_KEY" ${url}/api/workflows/inbox-triage/runs`,
    `  curl -H "Authorization: Bearer $HANDOFF_API_KEY" ${url}/api/pending`,
    `  curl -X POST -H "Authorization: Bearer $HANDOFF_API_KEY" -H "Content-Type: application/json" \\`,
    `       -d '{"action":"archive","note":"why"}' ${url}/api/decisions/ID`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

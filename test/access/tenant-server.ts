/**
 * The servers the two-tenant suite attacks over HTTP: the local server (`handoff start`, a real
 * child process) and the Lambda app (the api and webhook handlers behind an HTTP front that
 * turns each request into API Gateway's payload v2 event, as the gateway would). Each target
 * says how its owner acts (the CLI as the local owner; on AWS an administrator) so the suite
 * is written once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { childEnv } from '../support/child-env.ts';
import { cliJson, runCli } from '../support/cli.ts';
import { hashTree } from '../support/hash-tree.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import type { Tenancy } from './tenancy.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/handoff.js');

export interface RunningTarget {
  url: string;
  /** What the server wrote to stderr so far (its log and console notices). */
  stderr(): string;
  /** The server's own process id (its children are what a hostile setting would start). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts `handoff start --port 0` and waits for its address. */
export async function startLocalServer(env: Record<string, string>): Promise<RunningTarget> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 30_000);
    child.stdout!.on('data', (d) => {
      stdout += d;
      const found = /Handoff is running at (http:\/\/\S+)/.exec(stdout);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The CLI as the local owner would run it, on the server's state directory. */
export function owner(env: Record<string, string>) {
  return {
    json: <T>(args: string[]) => cliJson<T>(args, env),
    run: (args: string[]) => runCli(args, env),
    /** Sets credential `name` of `workspace` (through a file, as a script would). */
    async setCredential(workspace: string, name: string, value: string): Promise<void> {
      const file = path.join(env.HANDOFF_STATE_DIR!, `..`, `${workspace}-${name}.value`);
      await writeFile(file, value);
      const set = await runCli(
        ['credentials', 'set', name, '--value-file', file, '--workspace', workspace],
        env,
      );
      await rm(file);
      if (set.code !== 0) throw new Error(`credentials set ${name}: ${set.stderr}`);
    },
    /** Makes a workspace and a key scoped to it; returns the workspace id and the key. */
    async workspaceWithKey(name: string): Promise<{ id: string; key: string }> {
      const { id } = await cliJson<{ id: string }>(['workspaces', 'add', name], env);
      const { key } = await cliJson<{ key: string }>(['keys', 'add', '--workspace', name], env);
      return { id, key };
    },
  };
}

/** `sha256=<hex>`: the signature a webhook sender puts in X-Handoff-Signature. */
export function signed(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A call to the target's API with a bearer key (and optionally a workspace header). */
export function callWith(url: string, key: string) {
  return (
    route: string,
    init: {
      method?: string;
      body?: string | ReadableStream<Uint8Array>;
      workspace?: string;
      type?: string;
    } = {},
  ): Promise<Response> =>
    fetch(`${url}${route}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${key}`,
        ...(init.workspace ? { 'X-Handoff-Workspace': init.workspace } : {}),
        ...(init.body !== undefined ? { 'Content-Type': init.type ?? 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
}

/**
 * A body of `total` bytes made only as the server reads it; `pulled()` says how many bytes it
 * took before answering (a limit checked while reading stops far short of the whole).
 */
export function lazyBody(
  total: number,
  chunk = 64 * 1024,
): { body: ReadableStream<Uint8Array>; pulled(): number } {
  let sent = 0;
  const bytes = new Uint8Array(chunk).fill(0x61);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk;
      controller.enqueue(bytes);
    },
  });
  return { body, pulled: () => sent };
}

/**
 * Every file under `folder`, by content (none yet: empty), once no write is under way: two
 * reads alike. A file renamed away mid-read (a store's write still landing) is read again,
 * never taken for an empty folder.
 */
async function filesIn(folder: string): Promise<Record<string, string>> {
  let last: string | undefined;
  for (let read = 0; read < 50; read += 1) {
    const exists = await stat(folder).then(
      () => true,
      () => false,
    );
    if (!exists) return {};
    const files = await hashTree(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    const text = files && JSON.stringify(files);
    if (files && text === last) return files;
    last = text;
    await new Promise((settle) => setTimeout(settle, 100));
  }
  throw new Error(`${folder} kept changing for 5 s`);
}

/** The local server as a tenancy: `handoff start`, its owner the CLI on the same state directory. */
export async function startLocalTenancy(env: Record<string, string>): Promise<Tenancy> {
  const server = await startLocalServer(env);
  const cli = owner(env);
  const must = async (args: string[]) => {
    const result = await cli.run(args);
    if (result.code !== 0) throw new Error(`handoff ${args.join(' ')}: ${result.stderr}`);
  };
  return {
    kind: 'local',
    url: server.url,
    adminKey: env.HANDOFF_API_KEY!,
    workspaceWithKey: (name) => cli.workspaceWithKey(name),
    addWorkspace: (name) => cli.json<{ id: string }>(['workspaces', 'add', name]),
    removeWorkspace: (name) => must(['workspaces', 'remove', name]),
    renameWorkspace: (from, to) => must(['workspaces', 'rename', from, to]),
    setCredential: (workspace, name, value) => cli.setCredential(workspace, name, value),
    stateOf: (id) => filesIn(workspaceDir(env.HANDOFF_STATE_DIR!, id)),
    children() {
      try {
        // A run the server works in a child of its own (`handoff __run-child`) is not a program a key started.
        return execFileSync('ps', ['--ppid', String(server.pid), '-o', 'comm=,args='], { encoding: 'utf8' })
          .split('\n')
          .filter((line) => line.trim() && !line.includes('__run-child'))
          .map((line) => line.trim().split(/\s+/)[0]!);
      } catch {
        return []; // ps exits 1 when there are none
      }
    },
    pause: async () => undefined, // the local server runs every step itself
    notices: () => server.stderr(),
    stop: () => server.stop(),
  };
}

/**
 * Two teams share one server. Team A's key is held by someone hostile; team B's mail, runs,
 * rules and the machine itself must stay out of its reach. Each test is one attempt over
 * HTTP against a running `handoff start` and the state it leaves: the hostile request, and
 * nothing changed after it (files, records, processes started: none). What a scoped key may
 * still do (its own workflows, runs, HTTP integrations to public hosts) is checked beside it.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { hashTree } from '../support/hash-tree.ts';
import { waitFor } from '../support/wait-for.ts';
import { callWith, lazyBody, owner, signed, startLocalServer, type RunningTarget } from './tenant-server.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
/** The server's webhook secret: the administrator's, for the default workspace's hooks. */
const WEBHOOK_SECRET = 'shared-webhook-secret';
/** Each team's own webhook secret (its WEBHOOK_SECRET credential). */
const hookSecret = (workspace: string) => `hooks-of-${workspace}`;

let dir: string;
let state: string;
let env: Record<string, string>;
let server: RunningTarget;
let a: { id: string; key: string };
let b: { id: string; key: string };
let bMaildir: string;
/** A file the hostile settings would create if anything ever ran them. */
let marker: string;

const eventWorkflow = (id: string, extra = '') => `id: ${id}
name: Hooked
trigger: { webhook: true }
source: { type: event${extra} }
instructions: File a ticket for each item.
actions:
  - { name: file_ticket, irreversible: false }
human_gate: { options: [file_ticket, skip] }
`;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-tenants-'));
  state = path.join(dir, 'state');
  marker = path.join(dir, 'pwned');
  env = { HANDOFF_STATE_DIR: state, HANDOFF_API_KEY: ADMIN_KEY, HANDOFF_WEBHOOK_SECRET: WEBHOOK_SECRET };
  const cli = owner(env);
  a = await cli.workspaceWithKey('team-a');
  b = await cli.workspaceWithKey('team-b');
  for (const team of ['team-a', 'team-b']) await cli.setCredential(team, 'WEBHOOK_SECRET', hookSecret(team));
  bMaildir = path.join(workspaceDir(state, b.id), 'mail', 'inbox');
  await createDemoMaildir(bMaildir);
  server = await startLocalServer(env);
  // Team B works as a scoped key may: its own workflow on a Maildir in its own folder.
  const saved = await callWith(server.url, b.key)('/api/workflows/inbox-triage', {
    method: 'PUT',
    body: demoWorkflowYaml(bMaildir),
    type: 'application/yaml',
  });
  expect(saved.status).toBe(201);
  const started = await callWith(server.url, b.key)('/api/workflows/inbox-triage/runs', {
    method: 'POST',
    body: '',
  });
  expect(started.status).toBe(202);
  await waitFor(
    async () => ((await (await callWith(server.url, b.key)('/api/pending')).json()) as unknown[]).length > 0,
  );
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

const asA = () => callWith(server.url, a.key);
const asB = () => callWith(server.url, b.key);
const asAdmin = () => callWith(server.url, ADMIN_KEY);

/** Every file under `folder`, by content (none yet: empty). */
const filesIn = (folder: string) =>
  fs.access(folder).then(
    () => hashTree(folder),
    () => ({}),
  );
/** Every file of team B's workspace and mail: what no request of A's may change. */
const bState = () => filesIn(workspaceDir(state, b.id));

/** The processes the server has started (a hostile setting would show up here). */
function serverChildren(): string[] {
  try {
    return execFileSync('ps', ['--ppid', String(server.pid), '-o', 'comm='], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

describe('1. programs, host paths and private addresses are an administrator’s settings', () => {
  const stdioFile = `version: 1
integrations:
  - name: shell
    entry:
      name: shell
      title: Shell
      transport: { kind: stdio, command: sh, args: [-c, "touch ${'$'}{MARKER}; cat ${'$'}{STATE}/link.key"] }
`;

  it('refuses a stdio integration from a scoped key (403, nothing saved, nothing started)', async () => {
    const before = await filesIn(workspaceDir(state, a.id));
    const applied = await asA()('/api/workspace/apply', { body: stdioFile, type: 'application/yaml' });
    expect(applied.status).toBe(403);
    const { error } = (await applied.json()) as { error: string };
    expect(error).toMatch(/integrations\.0\.entry\.transport: starts a program on the server \(sh\)/);
    expect(error).toMatch(/administrator/);
    expect(error.split('\n')).toHaveLength(1);
    expect(await filesIn(workspaceDir(state, a.id))).toEqual(before);
    // Nothing runs it later either: a run and doctor in A start no process.
    await asA()('/api/workflows/nope/runs', { method: 'POST', body: '' });
    expect((await owner(env).run(['doctor', '--workspace', 'team-a'])).code).not.toBeNull();
    await expect(fs.access(marker)).rejects.toThrow();
    expect(serverChildren()).toEqual([]);
  });

  it.each([
    ['loopback', 'http://127.0.0.1:9/mcp'],
    ['the metadata service', 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', 'http://10.0.0.7/mcp'],
    ['an IPv6 loopback', 'http://[::1]:8080/mcp'],
    ['a loopback spelled as a number', 'http://2130706433/mcp'],
    ['a name for this machine', 'http://localhost:4000/mcp'],
  ])('refuses an HTTP integration on %s', async (_, url) => {
    const file = `version: 1
integrations:
  - name: probe
    entry: { name: probe, title: Probe, transport: { kind: http, url: "${url}" } }
`;
    const applied = await asA()('/api/workspace/apply', { body: file, type: 'application/yaml' });
    expect(applied.status).toBe(403);
    expect(((await applied.json()) as { error: string }).error).toMatch(
      /integrations\.0\.entry\.transport\.url: .* is on this machine or a private network/,
    );
  });

  it('refuses a Slack base URL and an IMAP host on this machine, and a private UI base URL', async () => {
    const slack = `version: 1
integrations:
  - name: chat
    entry: { name: chat, title: Chat, transport: { kind: slack, token: SLACK_BOT_TOKEN, base_url: "http://127.0.0.1:7/api" } }
`;
    // Team A has a Slack token; the hostile key would send it to a server of its choosing on this machine.
    await owner(env).setCredential('team-a', 'SLACK_BOT_TOKEN', 'xoxb-team-a');
    const refused = await asA()('/api/workspace/apply', { body: slack, type: 'application/yaml' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/transport\.base_url: 127\.0\.0\.1/);
    const settings = 'version: 1\nsettings: { ui_base_url: "http://169.254.169.254/" }\n';
    expect((await asA()('/api/workspace/apply', { body: settings, type: 'application/yaml' })).status).toBe(
      403,
    );
    const imap = `id: probe
name: Probe
trigger: { manual: true }
source: { type: imap, host: 127.0.0.1, port: 143, tls: false, user: x, credential: MAIL_PASSWORD }
instructions: Archive everything.
actions: [{ name: archive, irreversible: false }]
human_gate: { options: [archive, skip] }
`;
    const put = await asA()('/api/workflows/probe', { method: 'PUT', body: imap, type: 'application/yaml' });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { error: string }).error).toMatch(
      /^source\.host: 127\.0\.0\.1 is on this machine/,
    );
    expect((await asA()('/api/workflows/probe')).status).toBe(404);
  });

  it('still lets a scoped key add an HTTP integration on a public host, and an administrator anything', async () => {
    const file = `version: 1
integrations:
  - name: tickets
    entry: { name: tickets, title: Tickets, transport: { kind: http, url: "https://mcp.tickets.example/mcp" } }
`;
    const own = await asA()('/api/workspace/apply', { body: file, type: 'application/yaml' });
    expect(own.status).toBe(200);
    const admin = await asAdmin()('/api/workspace/apply?dry_run=1', {
      body: stdioFile,
      type: 'application/yaml',
      workspace: 'team-a',
    });
    expect(admin.status).toBe(200); // dry run: checked and allowed, not written
  });
});

describe("2. a scoped key's Maildir stays inside its workspace", () => {
  const maildirWorkflow = (folder: string) => demoWorkflowYaml(folder).replace('inbox-triage', 'reader');

  it("refuses team B's Maildir, a path that climbs out, and a link that leads out; B's mail is untouched", async () => {
    const before = await bState();
    const own = path.join(workspaceDir(state, a.id), 'mail');
    await fs.mkdir(own, { recursive: true });
    await fs.symlink(bMaildir, path.join(own, 'shortcut'));
    for (const folder of [bMaildir, `${own}/../../${b.id}/mail/inbox`, path.join(own, 'shortcut'), '/etc']) {
      const put = await asA()('/api/workflows/reader', {
        method: 'PUT',
        body: maildirWorkflow(folder),
        type: 'application/yaml',
      });
      expect(put.status).toBe(403);
      const { error } = (await put.json()) as { error: string };
      expect(error).toMatch(/^source\.path: .* is outside this workspace's folder/);
    }
    expect((await asA()('/api/workflows/reader')).status).toBe(404);
    expect(await bState()).toEqual(before);
  });

  it('accepts a Maildir inside its own folder', async () => {
    const inbox = path.join(workspaceDir(state, a.id), 'mail', 'inbox');
    await createDemoMaildir(inbox);
    const put = await asA()('/api/workflows/reader', {
      method: 'PUT',
      body: maildirWorkflow(inbox),
      type: 'application/yaml',
    });
    expect(put.status).toBe(201);
  });
});

describe('3. a key belongs to its workspace, not to a name', () => {
  it('is revoked when its workspace is removed, and opens nothing of a workspace made later under the name', async () => {
    const cli = owner(env);
    const c = await cli.workspaceWithKey('team-c');
    const asC = callWith(server.url, c.key);
    expect((await asC('/api/pending')).status).toBe(200);
    expect((await cli.run(['workspaces', 'remove', 'team-c'])).code).toBe(0);
    expect((await asC('/api/pending')).status).toBe(401);
    const again = await cli.json<{ id: string }>(['workspaces', 'add', 'team-c']);
    expect(again.id).not.toBe(c.id);
    expect((await asC('/api/pending')).status).toBe(401);
    expect((await asC('/api/pending', { workspace: 'team-c' })).status).toBe(401);
  });

  it("does not hand a workspace's hooks to another renamed onto its old name", async () => {
    const cli = owner(env);
    const x = await cli.workspaceWithKey('team-x');
    await cli.setCredential('team-x', 'WEBHOOK_SECRET', hookSecret(x.id));
    for (const key of [x.key, a.key])
      expect(
        (
          await callWith(server.url, key)('/api/workflows/hooked', {
            method: 'PUT',
            body: eventWorkflow('hooked'),
            type: 'application/yaml',
          })
        ).status,
      ).toBe(201);
    // X's hook URL names X's id; X is renamed, then A takes X's old name.
    await cli.run(['workspaces', 'rename', 'team-x', 'team-x-renamed']);
    await cli.run(['workspaces', 'rename', 'team-a', x.id]);
    const body = JSON.stringify({ items: [{ id: 'evt-1', subject: 'Ping', text: 'hello' }] });
    const delivered = await fetch(`${server.url}/hooks/hooked?workspace=${x.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Handoff-Signature': signed(hookSecret(x.id), body) },
      body,
    });
    expect(delivered.status).toBe(202);
    const { run_id } = (await delivered.json()) as { run_id: string };
    expect((await callWith(server.url, x.key)(`/api/runs/${run_id}`)).status).toBe(200);
    expect((await asA()(`/api/runs/${run_id}`)).status).toBe(404);
    await cli.run(['workspaces', 'rename', x.id, 'team-a']);
  });
});

describe("4. another workspace's runs are out of sight", () => {
  it('gives each workspace its own run for the same idempotency key, and 404 for the other one’s', async () => {
    await asB()('/api/workflows/hooked', {
      method: 'PUT',
      body: eventWorkflow('hooked'),
      type: 'application/yaml',
    });
    const ids: string[] = [];
    for (const workspace of [a.id, b.id]) {
      const body = JSON.stringify({ items: [{ id: 'evt-2', subject: 'Same', text: 'same key' }] });
      const res = await fetch(`${server.url}/hooks/hooked?workspace=${workspace}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Handoff-Signature': signed(hookSecret(workspace), body),
          'Idempotency-Key': 'delivery-42',
        },
        body,
      });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { run_id: string }).run_id);
    }
    expect(ids[0]).not.toBe(ids[1]);
    const bRun = ids[1]!;
    expect((await asA()(`/api/runs/${bRun}`)).status).toBe(404);
    expect((await asA()(`/api/runs/${bRun}`, { workspace: 'team-b' })).status).toBe(404);
    expect((await asA()(`/events/${bRun}`)).status).toBe(404);
    expect((await fetch(`${server.url}/events/${bRun}?key=${a.key}`)).status).toBe(404);
  });
});

describe("4b. one team's webhook secret signs nothing of another's", () => {
  it("refuses team B's hooks signed with the server's secret or team A's, and takes B's own", async () => {
    const body = JSON.stringify({ items: [{ id: 'evt-3', subject: 'Forged', text: 'x' }] });
    const deliver = (secret: string) =>
      fetch(`${server.url}/hooks/hooked?workspace=${b.id}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Handoff-Signature': signed(secret, body) },
        body,
      });
    const before = await bState();
    for (const secret of [WEBHOOK_SECRET, hookSecret('team-a')]) {
      const forged = await deliver(secret);
      expect(forged.status).toBe(401);
    }
    expect(await bState()).toEqual(before);
    expect((await deliver(hookSecret('team-b'))).status).toBe(202);
  });
});

describe('5. every body is limited while it is read', () => {
  it.each([
    ['a page call of the voice route', '/ui/api/decisions/dec_x/voice'],
    ['the voice route', '/api/decisions/dec_x/voice'],
    ['a decision', '/api/decisions/dec_x'],
    ['a workflow', '/api/workflows/big'],
  ])('refuses an endless body to %s with 413 naming the limit, long before its end', async (_, route) => {
    const { body, pulled } = lazyBody(256 * 1024 * 1024);
    const res = await asA()(route, {
      method: route.endsWith('big') ? 'PUT' : 'POST',
      body,
      type: 'audio/wav',
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toMatch(/\d+ (KiB|MiB)/);
    expect(pulled()).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('6. refusals that say what is wrong and nothing more', () => {
  it('does not tell an unsigned webhook caller which secret a workflow expects', async () => {
    await asA()('/api/workflows/private-hook', {
      method: 'PUT',
      body: eventWorkflow('private-hook', ', secret: PRIVATE_HOOK_SECRET'),
      type: 'application/yaml',
    });
    const res = await fetch(`${server.url}/hooks/private-hook?workspace=${a.id}`, {
      method: 'POST',
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toMatch(/PRIVATE_HOOK_SECRET/);
  });

  it('names the workspace a scoped key may not open, never "undefined"', async () => {
    const res = await asA()('/api/pending', { workspace: 'team-b' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe(
      'no workspace "team-b" (see: handoff workspaces)',
    );
  });
});

describe('7. a decision link of another workspace than default answers in that workspace', () => {
  it('opens from the notice and its form answers the question', async () => {
    const link = /(http:\/\/\S+\/decide\/\S+workspace=team-b)/.exec(server.stderr())?.[1];
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    const html = await page.text();
    const action = /<form class="answer" method="post" action="([^"]+)"/
      .exec(html)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(action).toMatch(/workspace=team-b/);
    const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
    const option = /name="action"\s+value="([^"]+)"/.exec(html)?.[1];
    const answered = await fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: new URLSearchParams({ token: token!, action: option! }).toString(),
    });
    expect(answered.status).toBe(200);
    expect(await answered.text()).toMatch(/recorded|Answered|Thanks/i);
  });
});

/**
 * Two teams share one server. Team A's key is held by someone hostile; team B's mail, runs,
 * rules and the machine itself must stay out of its reach. Each test is one attempt over HTTP,
 * against the local server (`handoff start`) and the Lambda app (behind API Gateway's payload),
 * and the state it leaves: the hostile request, and nothing changed after it (files or table
 * items, processes started: none). What a scoped key may still do (its own workflows, runs,
 * HTTP integrations to public hosts) is checked beside it.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDemoMaildir, demoWorkflowYaml } from '../../shared/sources/maildir/demo.ts';
import { workspaceDir } from '../../shared/workspaces/layout.ts';
import { waitFor } from '../support/wait-for.ts';
import { startLambdaTenancy } from './lambda-tenancy.ts';
import type { Tenancy } from './tenancy.ts';
import { callWith, lazyBody, signed, startLocalTenancy } from './tenant-server.ts';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
/** The server's webhook secret: the administrator's, for the default workspace's hooks. */
const WEBHOOK_SECRET = 'shared-webhook-secret';
/** Each team's own webhook secret (its WEBHOOK_SECRET credential). */
const hookSecret = (workspace: string) => `hooks-of-${workspace}`;

const eventWorkflow = (id: string, extra = '') => `id: ${id}
name: Hooked
trigger: { webhook: true }
source: { type: event${extra} }
instructions: File a ticket for each bug report.
actions:
  - { name: file_ticket, irreversible: false }
human_gate: { options: [file_ticket, skip] }
`;

const yaml = 'application/yaml';

/** Delivers `items` to workflow `workflow` of `workspace`, signed with `secret`. */
function hook(
  url: string,
  workflow: string,
  workspace: string,
  secret: string,
  items: object[],
  key?: string,
) {
  const body = JSON.stringify({ items });
  return fetch(`${url}/hooks/${workflow}?workspace=${workspace}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Handoff-Signature': signed(secret, body),
      ...(key ? { 'Idempotency-Key': key } : {}),
    },
    body,
  });
}

const targets: [string, (dir: string) => Promise<Tenancy>][] = [
  [
    'the local server',
    (dir) =>
      startLocalTenancy({
        HANDOFF_STATE_DIR: path.join(dir, 'state'),
        HANDOFF_API_KEY: ADMIN_KEY,
        HANDOFF_WEBHOOK_SECRET: WEBHOOK_SECRET,
      }),
  ],
  ['the Lambda app', (dir) => startLambdaTenancy(ADMIN_KEY, WEBHOOK_SECRET, path.join(dir, 'state'))],
];

describe.each(targets)('two teams on %s', (_, start) => {
  let dir: string;
  let t: Tenancy;
  let a: { id: string; key: string };
  let b: { id: string; key: string };
  /** Team B's mail (on the local server, in its own folder). */
  let bMaildir: string;
  /** A file the hostile settings would create if anything ever ran them. */
  let marker: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-tenants-'));
    marker = path.join(dir, 'pwned');
    t = await start(dir);
    a = await t.workspaceWithKey('team-a');
    b = await t.workspaceWithKey('team-b');
    for (const team of ['team-a', 'team-b']) await t.setCredential(team, 'WEBHOOK_SECRET', hookSecret(team));
    bMaildir = path.join(workspaceDir(path.join(dir, 'state'), b.id), 'mail', 'inbox');
    if (t.kind === 'local') await createDemoMaildir(bMaildir);
    // Team B works as a scoped key may: its own workflow; a delivery leaves it a question.
    const saved = await asB()('/api/workflows/questions', {
      method: 'PUT',
      body: eventWorkflow('questions'),
      type: yaml,
    });
    expect(saved.status).toBe(201);
    const item = {
      id: 'lunch-1',
      sender: 'sam@people.example',
      subject: 'Lunch on Friday?',
      text: 'Are you free?',
    };
    const delivered = await hook(t.url, 'questions', b.id, hookSecret('team-b'), [item]);
    expect(delivered.status).toBe(202);
    const { run_id } = (await delivered.json()) as { run_id: string };
    await t.pause(b.id, run_id);
    await waitFor(async () => ((await (await asB()('/api/pending')).json()) as unknown[]).length > 0);
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const asA = () => callWith(t.url, a.key);
  const asB = () => callWith(t.url, b.key);
  const asAdmin = () => callWith(t.url, ADMIN_KEY);

  describe('1. programs, host paths and private addresses are an administrator’s settings', () => {
    const stdioFile = () => `version: 1
integrations:
  - name: shell
    entry:
      name: shell
      title: Shell
      transport: { kind: stdio, command: sh, args: [-c, "touch ${marker}"] }
`;

    it('refuses a stdio integration from a scoped key (403, nothing saved, nothing started)', async () => {
      const before = await t.stateOf(a.id);
      const applied = await asA()('/api/workspace/apply', { body: stdioFile(), type: yaml });
      expect(applied.status).toBe(403);
      const { error } = (await applied.json()) as { error: string };
      expect(error).toMatch(/integrations\.0\.entry\.transport: starts a program on the server \(sh\)/);
      expect(error).toMatch(/administrator/);
      expect(error.split('\n')).toHaveLength(1);
      expect(await t.stateOf(a.id)).toEqual(before);
      await expect(fs.access(marker)).rejects.toThrow();
      expect(t.children()).toEqual([]);
    });

    it.each([
      ['loopback', 'http://127.0.0.1:9/mcp'],
      ['the metadata service', 'http://169.254.169.254/latest/meta-data/'],
      ['a private network', 'http://10.0.0.7/mcp'],
      ['an IPv6 loopback', 'http://[::1]:8080/mcp'],
      ['a loopback spelled as a number', 'http://2130706433/mcp'],
      ['a name for this machine', 'http://localhost:4000/mcp'],
    ])('refuses an HTTP integration on %s', async (__, url) => {
      const file = `version: 1
integrations:
  - name: probe
    entry: { name: probe, title: Probe, transport: { kind: http, url: "${url}" } }
`;
      const applied = await asA()('/api/workspace/apply', { body: file, type: yaml });
      expect(applied.status).toBe(403);
      expect(((await applied.json()) as { error: string }).error).toMatch(
        /integrations\.0\.entry\.transport\.url: .* is on this machine or a private network/,
      );
    });

    it('refuses a Slack base URL and an IMAP host on this machine, and a private UI base URL', async () => {
      // Team A has a Slack token; the hostile key would send it to a server of its choosing on this machine.
      await t.setCredential('team-a', 'SLACK_BOT_TOKEN', 'xoxb-team-a');
      const slack = `version: 1
integrations:
  - name: chat
    entry: { name: chat, title: Chat, transport: { kind: slack, token: SLACK_BOT_TOKEN, base_url: "http://127.0.0.1:7/api" } }
`;
      const refused = await asA()('/api/workspace/apply', { body: slack, type: yaml });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toMatch(
        /transport\.base_url: 127\.0\.0\.1/,
      );
      const settings = 'version: 1\nsettings: { ui_base_url: "http://169.254.169.254/" }\n';
      expect((await asA()('/api/workspace/apply', { body: settings, type: yaml })).status).toBe(403);
      const imap = `id: probe
name: Probe
trigger: { manual: true }
source: { type: imap, host: 127.0.0.1, port: 143, tls: false, user: x, credential: MAIL_PASSWORD }
instructions: Archive everything.
actions: [{ name: archive, irreversible: false }]
human_gate: { options: [archive, skip] }
`;
      const put = await asA()('/api/workflows/probe', { method: 'PUT', body: imap, type: yaml });
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
      expect((await asA()('/api/workspace/apply', { body: file, type: yaml })).status).toBe(200);
      const admin = await asAdmin()('/api/workspace/apply?dry_run=1', {
        body: stdioFile(),
        type: yaml,
        workspace: 'team-a',
      });
      expect(admin.status).toBe(200); // dry run: checked and allowed, not written
    });
  });

  describe("2. a scoped key's Maildir stays inside its workspace", () => {
    const maildirWorkflow = (folder: string) => demoWorkflowYaml(folder).replace('inbox-triage', 'reader');

    it("refuses team B's Maildir, a path that climbs out and a link that leads out; B is untouched", async () => {
      const before = await t.stateOf(b.id);
      const own = path.join(dir, 'state', 'workspaces', a.id, 'mail');
      await fs.mkdir(own, { recursive: true });
      await fs.symlink(bMaildir, path.join(own, 'shortcut'));
      for (const folder of [
        bMaildir,
        `${own}/../../${b.id}/mail/inbox`,
        path.join(own, 'shortcut'),
        '/etc',
      ]) {
        const put = await asA()('/api/workflows/reader', {
          method: 'PUT',
          body: maildirWorkflow(folder),
          type: yaml,
        });
        // The Lambda app takes no Maildir at all (it has no folders), from anyone.
        expect(put.status).toBe(t.kind === 'lambda' ? 400 : 403);
        const { error } = (await put.json()) as { error: string };
        if (t.kind === 'local') expect(error).toMatch(/^source\.path: .* is outside this workspace's folder/);
      }
      expect((await asA()('/api/workflows/reader')).status).toBe(404);
      expect(await t.stateOf(b.id)).toEqual(before);
    });

    it('accepts a Maildir inside its own folder on the local server', async () => {
      const inbox = path.join(dir, 'state', 'workspaces', a.id, 'mail', 'inbox');
      await createDemoMaildir(inbox);
      const put = await asA()('/api/workflows/reader', {
        method: 'PUT',
        body: maildirWorkflow(inbox),
        type: yaml,
      });
      expect(put.status).toBe(t.kind === 'lambda' ? 400 : 201);
    });
  });

  describe('3. a key belongs to its workspace, not to a name', () => {
    it('is revoked when its workspace is removed, and opens nothing of a workspace made later under the name', async () => {
      const c = await t.workspaceWithKey('team-c');
      const asC = callWith(t.url, c.key);
      expect((await asC('/api/pending')).status).toBe(200);
      await t.removeWorkspace('team-c');
      expect((await asC('/api/pending')).status).toBe(401);
      const again = await t.addWorkspace('team-c');
      expect(again.id).not.toBe(c.id);
      expect((await asC('/api/pending')).status).toBe(401);
      expect((await asC('/api/pending', { workspace: 'team-c' })).status).toBe(401);
    });

    it("does not hand a workspace's hooks to another renamed onto its old name", async () => {
      const x = await t.workspaceWithKey('team-x');
      await t.setCredential('team-x', 'WEBHOOK_SECRET', hookSecret(x.id));
      for (const key of [x.key, a.key]) {
        const put = await callWith(t.url, key)('/api/workflows/hooked', {
          method: 'PUT',
          body: eventWorkflow('hooked'),
          type: yaml,
        });
        expect(put.status).toBe(201);
      }
      // X's hook URL names X's id; X is renamed, then A takes X's old name.
      await t.renameWorkspace('team-x', 'team-x-renamed');
      await t.renameWorkspace('team-a', x.id);
      const delivered = await hook(t.url, 'hooked', x.id, hookSecret(x.id), [
        { id: 'evt-1', subject: 'Ping', text: 'hello' },
      ]);
      expect(delivered.status).toBe(202);
      const { run_id } = (await delivered.json()) as { run_id: string };
      expect((await callWith(t.url, x.key)(`/api/runs/${run_id}`)).status).toBe(200);
      expect((await asA()(`/api/runs/${run_id}`)).status).toBe(404);
      await t.renameWorkspace(x.id, 'team-a');
    });
  });

  describe("4. another workspace's runs are out of sight", () => {
    it('gives each workspace its own run for the same idempotency key, and 404 for the other one’s', async () => {
      await asB()('/api/workflows/hooked', { method: 'PUT', body: eventWorkflow('hooked'), type: yaml });
      const ids: string[] = [];
      for (const [workspace, team] of [
        [a.id, 'team-a'],
        [b.id, 'team-b'],
      ] as const) {
        const res = await hook(
          t.url,
          'hooked',
          workspace,
          hookSecret(team),
          [{ id: 'evt-2', subject: 'Same', text: 'same key' }],
          'delivery-42',
        );
        expect(res.status).toBe(202);
        ids.push(((await res.json()) as { run_id: string }).run_id);
      }
      expect(ids[0]).not.toBe(ids[1]);
      const bRun = ids[1]!;
      expect((await asA()(`/api/runs/${bRun}`)).status).toBe(404);
      expect((await asA()(`/api/runs/${bRun}`, { workspace: 'team-b' })).status).toBe(404);
      expect((await asA()(`/events/${bRun}`)).status).toBe(404);
      expect((await fetch(`${t.url}/events/${bRun}?key=${a.key}`)).status).toBe(404);
    });

    it("refuses team B's hooks signed with the server's secret or team A's, and takes B's own", async () => {
      const items = [{ id: 'evt-3', subject: 'Forged', text: 'x' }];
      const before = await t.stateOf(b.id);
      for (const secret of [WEBHOOK_SECRET, hookSecret('team-a')])
        expect((await hook(t.url, 'hooked', b.id, secret, items)).status).toBe(401);
      expect(await t.stateOf(b.id)).toEqual(before);
      expect((await hook(t.url, 'hooked', b.id, hookSecret('team-b'), items)).status).toBe(202);
    });
  });

  describe('5. every body is limited while it is read', () => {
    it.each([
      ['a page call of the voice route', '/ui/api/decisions/dec_x/voice', 'POST'],
      ['the voice route', '/api/decisions/dec_x/voice', 'POST'],
      ['a decision', '/api/decisions/dec_x', 'POST'],
      ['a workflow', '/api/workflows/big', 'PUT'],
    ])(
      'refuses an endless body to %s with 413 naming the limit, long before its end',
      async (__, route, method) => {
        // API Gateway takes at most 10 MB before a Lambda sees anything; the local server streams.
        const { body, pulled } = lazyBody((t.kind === 'lambda' ? 5 : 256) * 1024 * 1024);
        const res = await asA()(route, { method, body, type: 'audio/wav' });
        expect(res.status).toBe(413);
        expect(((await res.json()) as { error: string }).error).toMatch(/\d+ (KiB|MiB)/);
        expect(pulled()).toBeLessThan(16 * 1024 * 1024);
      },
    );
  });

  describe('6. refusals that say what is wrong and nothing more', () => {
    it('does not tell an unsigned webhook caller which secret a workflow expects', async () => {
      await asA()('/api/workflows/private-hook', {
        method: 'PUT',
        body: eventWorkflow('private-hook', ', secret: PRIVATE_HOOK_SECRET'),
        type: yaml,
      });
      const res = await fetch(`${t.url}/hooks/private-hook?workspace=${a.id}`, {
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
      // The notice is sent once the pause is saved.
      const linkIn = () => new RegExp(`(http://\\S+/decide/\\S+workspace=${b.id})`).exec(t.notices())?.[1];
      await waitFor(() => linkIn() !== undefined);
      const link = linkIn();
      expect(link).toBeDefined();
      const answeredId = decodeURIComponent(/\/decide\/([^?]+)/.exec(link!)![1]!);
      const waitingIds = async () =>
        ((await (await asB()('/api/pending')).json()) as { decision_id: string }[]).map((d) => d.decision_id);
      expect(await waitingIds()).toContain(answeredId);
      const page = await fetch(link!);
      expect(page.status).toBe(200);
      const html = await page.text();
      const action = /<form class="answer" method="post" action="([^"]+)"/
        .exec(html)?.[1]
        ?.replaceAll('&amp;', '&');
      expect(action).toMatch(new RegExp(`workspace=${b.id}`));
      const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
      const option = /name="action"\s+value="([^"]+)"/.exec(html)?.[1];
      const answered = await fetch(`${t.url}${action}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.url },
        body: new URLSearchParams({ token: token!, action: option! }).toString(),
      });
      expect(answered.status).toBe(200);
      expect(await waitingIds()).not.toContain(answeredId);
    });
  });
});

/**
 * Event workflows on the local server: a GitHub `pull_request` delivery (or Handoff's own
 * item shape) becomes the run's items; the review is made through the github integration
 * (a local MCP server standing in for GitHub's), once; bad deliveries start nothing.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { addEntry } from '../../shared/integrations/registry.ts';
import { BUILTIN_ENTRIES } from '../../shared/integrations/servers.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { EventSource } from '../../shared/sources/event/event-source.ts';
import { Secret } from '../../shared/credentials/secret.ts';
import { parseWorkflow } from '../../shared/workflows/load.ts';
import { saveWorkflow } from '../../shared/workflows/repository.ts';
import { readTemplate } from '../../shared/workflows/templates.ts';
import { createApp } from '../../shared/web/app.ts';
import { createRunLauncher, type RunLauncher } from '../../shared/web/run-launcher.ts';
import type { Hono } from 'hono';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../support/github-mcp.ts';
import { githubHeaders, pullRequestEvent } from '../support/github-payload.ts';
import { API_KEY, makeEngine, WEBHOOK_SECRET } from './support.ts';
import { promises as fs } from 'node:fs';

let dir: string;
let engine: EngineDeps;
let app: Hono;
let launcher: RunLauncher;
let github: GitHubStandIn;

beforeEach(async () => {
  const made = await makeEngine({ HANDOFF_API_KEY: API_KEY, HANDOFF_WEBHOOK_SECRET: WEBHOOK_SECRET });
  ({ dir, engine } = made);
  launcher = createRunLauncher(engine);
  app = createApp({ engine, env: made.env, runner: launcher });
  github = await startGitHubStandIn();
  // The built-in github entry, pointed at the stand-in (its argument templates kept).
  const builtin = BUILTIN_ENTRIES.find((e) => e.name === 'github')!;
  await addEntry(engine.store, { ...builtin, transport: { kind: 'http', url: github.url } });
  await saveWorkflow(engine.store, parseWorkflow(await readTemplate('pr-review'), 'pr-review.yaml'));
});

afterEach(async () => {
  await launcher.idle();
  await github.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const deliver = (body: string, headers: Record<string, string>) =>
  app.request('/hooks/pr-review', { method: 'POST', headers, body });

const BUMP = pullRequestEvent({
  number: 7,
  title: 'Bump lodash from 4.17.20 to 4.17.21',
  body: 'Bumps lodash from 4.17.20 to 4.17.21.',
  login: 'dependabot[bot]',
  bot: true,
  sha: '7777777777777777777777777777777777777777',
  changed_files: 2,
  additions: 5,
  deletions: 5,
});
const FEATURE = pullRequestEvent({
  number: 42,
  title: 'Retry uploads on timeout',
  body: 'Uploads now retry three times.',
  sha: '4242424242424242424242424242424242424242',
});

describe('a GitHub pull_request webhook on the local server', () => {
  it('labels a dependency bump low-risk at once, through the github integration', async () => {
    const body = JSON.stringify(BUMP);
    const res = await deliver(body, githubHeaders(body, WEBHOOK_SECRET));
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await launcher.idle();
    expect((await getRun(engine.store, run_id)).status).toBe('completed');
    expect(github.calls).toEqual([
      {
        tool: 'update_issue',
        args: { owner: 'octo-org', repo: 'widgets', issue_number: 7, labels: ['low-risk'] },
      },
    ]);
    const [acted] = (await listAudit(engine.store, { runId: run_id })).filter((e) => e.item_id);
    expect(acted).toMatchObject({
      item_id: 'octo-org/widgets#7@7777777777777777777777777777777777777777',
      action: 'github__update_issue',
      outcome: 'acted',
      decided_by: 'model',
    });
  });

  it('asks about a feature, reviews it once on the answer, and a redelivery changes nothing', async () => {
    const body = JSON.stringify(FEATURE);
    const headers = githubHeaders(body, WEBHOOK_SECRET, 'pull_request', 'delivery-42');
    const res = await deliver(body, headers);
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await launcher.idle();
    expect((await getRun(engine.store, run_id)).status).toBe('waiting');
    const [pending] = await listPending(engine.store);
    expect(pending).toMatchObject({
      item_id: 'octo-org/widgets#42@4242424242424242424242424242424242424242',
      suggested_action: 'github__create_and_submit_pull_request_review',
    });
    expect(github.calls).toEqual([]); // nothing happened before the answer

    const answer = await app.request(`/api/decisions/${pending!.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      // The review's text is the answer's body (the words shown with the question); the note teaches.
      body: JSON.stringify({
        action: 'github__create_and_submit_pull_request_review',
        note: 'reviews of features are asked about',
        body: 'Please add a test for the third retry.',
      }),
    });
    expect(answer.status).toBe(200);
    await launcher.idle();
    expect((await getRun(engine.store, run_id)).status).toBe('completed');
    const review = {
      tool: 'create_and_submit_pull_request_review',
      args: {
        owner: 'octo-org',
        repo: 'widgets',
        pullNumber: 42,
        commitID: '4242424242424242424242424242424242424242',
        event: 'COMMENT',
        body: 'Please add a test for the third retry.',
      },
    };
    expect(github.calls).toEqual([review]);
    // The audit: the review once, decided by the person who answered.
    const acted = (await listAudit(engine.store, { runId: run_id })).filter((e) => e.outcome === 'acted');
    expect(acted).toEqual([
      expect.objectContaining({
        item_id: 'octo-org/widgets#42@4242424242424242424242424242424242424242',
        action: 'github__create_and_submit_pull_request_review',
        decided_by: 'human',
      }),
    ]);

    // GitHub redelivers the same delivery: the run it started is the answer.
    const again = await deliver(body, headers);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ run_id, duplicate: true });
    // Another delivery of the same head commit: its run finds nothing new.
    const other = await deliver(body, githubHeaders(body, WEBHOOK_SECRET, 'pull_request', 'delivery-43'));
    const { run_id: second } = (await other.json()) as { run_id: string };
    await launcher.idle();
    expect((await getRun(engine.store, second)).status).toBe('skipped');
    expect(github.calls).toEqual([review]);
  });

  it("ignores GitHub's ping and a closed pull request, starting nothing", async () => {
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const pinged = await deliver(ping, githubHeaders(ping, WEBHOOK_SECRET, 'ping'));
    expect(pinged.status).toBe(200);
    expect(await pinged.json()).toEqual({ ignored: 'GitHub ping received; no run started' });
    const closed = JSON.stringify({ ...FEATURE, action: 'closed' });
    const res = await deliver(closed, githubHeaders(closed, WEBHOOK_SECRET));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ignored: string }).ignored).toMatch(
      /^pull request closed: no run started/,
    );
    expect(await listRuns(engine.store)).toEqual([]);
  });
});

describe("a workflow's own webhook secret", () => {
  it("is checked instead of the server-wide one; unset, the caller is told so without the secret's name", async () => {
    const yaml = (await readTemplate('pr-review')).replace(
      /^source: .*$/m,
      'source: { type: event, secret: REPO_HOOK_SECRET }',
    );
    await saveWorkflow(engine.store, parseWorkflow(yaml, 'pr-review.yaml'));
    const body = JSON.stringify(BUMP);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const unset = await deliver(body, githubHeaders(body, 'repo-secret'));
    const logged = stderr.mock.calls.map(([line]) => String(line)).join('');
    stderr.mockRestore();
    expect(unset.status).toBe(401);
    expect(logged).toContain(
      'names webhook secret REPO_HOOK_SECRET, which is not set: `handoff credentials set REPO_HOOK_SECRET`',
    );
    // An unsigned caller learns no secret's name; the server's log says which one to set.
    expect(await unset.json()).toEqual({
      error: "webhooks are not set up for this workflow: see the server's log",
    });
    await engine.credentials.set('REPO_HOOK_SECRET', new Secret('repo-secret'));
    const serverWide = await deliver(body, githubHeaders(body, WEBHOOK_SECRET));
    expect(serverWide.status).toBe(401); // the server's secret no longer opens this workflow
    expect(await listRuns(engine.store)).toEqual([]);
    const own = await deliver(body, githubHeaders(body, 'repo-secret'));
    expect(own.status).toBe(202);
    await launcher.idle();
    expect((await listRuns(engine.store)).map((r) => r.workflow_id)).toEqual(['pr-review']);
  });

  it('an unknown workflow is 401 to an unsigned caller and 404 only to one who signs', async () => {
    const body = JSON.stringify(BUMP);
    const post = (headers: Record<string, string>) =>
      app.request('/hooks/nope', { method: 'POST', headers, body });
    expect((await post(githubHeaders(body, 'guess'))).status).toBe(401);
    expect((await post(githubHeaders(body, WEBHOOK_SECRET))).status).toBe(404);
  });
});

describe("Handoff's own item shape", () => {
  it('stores the items with the run, where an EventSource in any process reads them', async () => {
    const body = JSON.stringify({
      items: [
        {
          id: 'form-1',
          sender: 'ana@example.com',
          subject: 'Refund request',
          text: 'Order 12 arrived broken.',
        },
        { id: 'form-2', subject: 'Question', text: 'Do you ship to Norway?', fields: { order: 12 } },
      ],
    });
    const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
    const res = await deliver(body, { 'X-Handoff-Signature': signature });
    expect(res.status).toBe(202);
    const { run_id } = (await res.json()) as { run_id: string };
    await launcher.idle();
    const run = await getRun(engine.store, run_id);
    const source = new EventSource(run.trigger.detail);
    expect(await source.listRefs()).toEqual(['form-1', 'form-2']);
    expect(await source.read('form-2')).toMatchObject({
      ok: true,
      item: { id: 'form-2', subject: 'Question', sender: { address: '' }, fields: { order: 12 } },
    });
  });
});

describe('bad webhook deliveries to an event workflow', () => {
  const signed = (body: string) => ({
    'X-Handoff-Signature': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
  });
  const feature = JSON.stringify(FEATURE);

  it.each([
    ['a body that is not JSON', 'items: [oops', signed('items: [oops'), 400, /^body must be JSON/],
    ['no items', '{"items": []}', signed('{"items": []}'), 400, /^body items: must hold at least one item/],
    ['no items field', '{}', signed('{}'), 400, /^body items: /],
    [
      'an item without an id',
      '{"items":[{"subject":"x"}]}',
      signed('{"items":[{"subject":"x"}]}'),
      400,
      /^body items\.0\.id: /,
    ],
    [
      'a wrong GitHub signature',
      feature,
      { ...githubHeaders(feature, 'not-the-secret') },
      401,
      /missing or wrong signature/,
    ],
    [
      'no signature at all',
      feature,
      { 'x-github-event': 'pull_request', 'content-type': 'application/json' },
      401,
      /missing or wrong signature/,
    ],
    [
      'a right Handoff signature beside a wrong GitHub one',
      feature,
      { ...signed(feature), 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      401,
      /missing or wrong signature/,
    ],
    [
      'an event type Handoff does not read',
      feature,
      githubHeaders(feature, WEBHOOK_SECRET, 'issues'),
      400,
      /not "issues"/,
    ],
    [
      'items too large to store with a run',
      JSON.stringify({ items: [{ id: 'big', subject: 'x', text: 'y'.repeat(200_000) }] }),
      signed(JSON.stringify({ items: [{ id: 'big', subject: 'x', text: 'y'.repeat(200_000) }] })),
      413,
      /^the items come to 196 KiB; a run stores at most 128 KiB of them/,
    ],
    [
      'a pull_request body that is not one',
      '{"action":"opened"}',
      githubHeaders('{"action":"opened"}', WEBHOOK_SECRET),
      400,
      /^not a GitHub pull_request event: /,
    ],
  ])('%s: one clear line, no run, nothing stored', async (_what, body, headers, status, message) => {
    const res = await deliver(body, headers);
    expect(res.status).toBe(status);
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
    await launcher.idle();
    expect(await listRuns(engine.store)).toEqual([]);
    expect(await listAudit(engine.store)).toEqual([]);
    expect(github.calls).toEqual([]);
  });
});

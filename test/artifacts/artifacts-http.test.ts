/**
 * Artifacts over HTTP: the API lists one run's or every run's, shows one, and downloads it
 * as an attachment of its own type; the pages show content as escaped text; the run
 * inspector lists what the run produced. On DynamoDB one run's artifacts are one Query.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactOf, listArtifacts, saveArtifact, type Artifact } from '../../shared/artifacts/artifacts.ts';
import type { Run } from '../../shared/records/runs.ts';
import { createRunFor } from '../../shared/runs/start-run.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { makeHarness, type Harness } from '../web/support.ts';

let h: Harness;
let run: Run;
let other: Run;
let digest: Artifact;
let hostile: Artifact;

beforeAll(async () => {
  h = await makeHarness();
  run = await createRunFor(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
  other = await createRunFor(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
  const from = (r: Run, itemId: string | null, decisionId: string | null = null) => ({
    workflowId: 'inbox-triage',
    runId: r.id,
    itemId,
    decisionId,
  });
  digest = await saveArtifact(
    h.engine.store,
    artifactOf(
      {
        kind: 'digest',
        title: 'Inbox: digest',
        contentType: 'text/markdown; charset=utf-8',
        body: '# Digest\n\n- one\n',
      },
      from(run, null),
      new Date('2026-11-30T08:00:00Z'),
    ),
  );
  hostile = await saveArtifact(
    h.engine.store,
    artifactOf(
      {
        kind: 'draft',
        title: 'Re: <img src=x onerror=alert(1)>',
        contentType: 'message/rfc822',
        body: 'Subject: hi\n\n<script>alert("draft")</script>\n',
        pointer: '/tmp/Maildir/.Drafts/cur/1',
      },
      from(run, '<m1@test.example>', 'dec_123'),
      new Date('2026-11-30T08:01:00Z'),
    ),
  );
  await saveArtifact(
    h.engine.store,
    artifactOf(
      { kind: 'report', title: 'Other run', contentType: 'text/plain; charset=utf-8', body: 'done\n' },
      from(other, null),
    ),
  );
});
afterAll(async () => {
  await h.cleanup();
});

describe('the API', () => {
  it("lists one run's artifacts, newest first, without bodies; every run's without ?run", async () => {
    const res = await h.app.request(`/api/artifacts?run=${run.id}`, { headers: h.auth() });
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, unknown>[];
    expect(list.map((a) => a.id)).toEqual([hostile.id, digest.id]);
    expect(list[0]).toMatchObject({
      kind: 'draft',
      run_id: run.id,
      item_id: '<m1@test.example>',
      decision_id: 'dec_123',
      has_body: true,
      size: Buffer.byteLength(hostile.body!, 'utf8'),
    });
    expect(list.every((a) => !('body' in a))).toBe(true);
    const all = (await (await h.app.request('/api/artifacts', { headers: h.auth() })).json()) as unknown[];
    expect(all).toHaveLength(3);
  });

  it('shows one with its body, and downloads it as an attachment of its own type', async () => {
    const one = await h.app.request(`/api/artifacts/${encodeURIComponent(digest.id)}`, { headers: h.auth() });
    expect(await one.json()).toEqual({ ...digest, version: undefined });
    const file = await h.app.request(`/api/artifacts/${encodeURIComponent(digest.id)}/download`, {
      headers: h.auth(),
    });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${run.id}.digest.md"`);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await file.text()).toBe('# Digest\n\n- one\n');
    const draft = await h.app.request(`/api/artifacts/${encodeURIComponent(hostile.id)}/download`, {
      headers: h.auth(),
    });
    expect(draft.headers.get('content-type')).toBe('message/rfc822');
    expect(draft.headers.get('content-disposition')).toMatch(/^attachment; filename="run_[\w.-]+\.eml"$/);
  });

  it('answers unknown ids, an unknown run and an empty ?run= with one line, and needs the key', async () => {
    for (const [url, status, message] of [
      ['/api/artifacts/nope', 404, 'no artifact "nope" (see `handoff artifacts`)'],
      ['/api/artifacts/nope/download', 404, 'no artifact "nope" (see `handoff artifacts`)'],
      ['/api/artifacts?run=run_nope', 404, /^no run "run_nope"|run_nope/],
      ['/api/artifacts?run=', 400, '?run= needs a run id (see `handoff runs`)'],
    ] as const) {
      const res = await h.app.request(url, { headers: h.auth() });
      expect(res.status).toBe(status);
      const { error } = (await res.json()) as { error: string };
      if (typeof message === 'string') expect(error).toBe(message);
      else expect(error).toMatch(message);
    }
    expect((await h.app.request('/api/artifacts')).status).toBe(401);
    expect((await h.app.request(`/api/artifacts/${encodeURIComponent(digest.id)}/download`)).status).toBe(
      401,
    );
  });
});

describe('the pages', () => {
  it('show the content as escaped text, with its provenance, and download it from the session', async () => {
    const page = await h.app.request(`/artifacts/${encodeURIComponent(hostile.id)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;draft&quot;)&lt;/script&gt;');
    expect(html).toContain('Re: &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain(`href="/decide/dec_123"`);
    expect(html).toContain(`href="/runs/${run.id}"`);
    const file = await h.app.request(`/artifacts/${encodeURIComponent(hostile.id)}/download`);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(await file.text()).toBe(hostile.body);
    expect((await h.app.request('/artifacts/nope')).status).toBe(404);
  });

  it("lists the workspace's artifacts, one run's with ?run=, and the run inspector lists its own", async () => {
    const all = await (await h.app.request('/artifacts')).text();
    expect(all).toMatch(/href="\/artifacts" aria-current="page"\s*>Artifacts</);
    expect(all.match(/data-artifact-id=/g)).toHaveLength(3);
    const one = await (await h.app.request(`/artifacts?run=${run.id}`)).text();
    expect(one.match(/data-artifact-id=/g)).toHaveLength(2);
    expect((await h.app.request('/artifacts?run=run_nope')).status).toBe(404);
    const inspector = await (await h.app.request(`/runs/${run.id}`)).text();
    expect(inspector).toContain('data-run-artifacts');
    expect(inspector).toContain(`href="/artifacts/${encodeURIComponent(digest.id)}/download"`);
    expect(inspector).not.toContain('Other run');
  });
});

describe('the API list, a page at a time', () => {
  it('keeps its bare array and says where the next page starts in X-Next-Cursor; each artifact once, newest first', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const res = await h.app.request(`/api/artifacts?limit=1${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: h.auth(),
      });
      expect(res.status).toBe(200);
      const list = (await res.json()) as { id: string; created_at: string }[];
      expect(Array.isArray(list)).toBe(true);
      expect(list).toHaveLength(1);
      seen.push(list[0]!.id);
      cursor = res.headers.get('x-next-cursor');
      if (!cursor) break;
    }
    const everyOne = (await (await h.app.request('/api/artifacts', { headers: h.auth() })).json()) as {
      id: string;
    }[];
    expect(seen).toEqual(everyOne.map((a) => a.id));
    expect(seen).toHaveLength(3);
    expect(seen.indexOf(hostile.id)).toBeLessThan(seen.indexOf(digest.id)); // 08:01 before 08:00
    // One run's list pages the same way.
    const first = await h.app.request(`/api/artifacts?run=${run.id}&limit=1`, { headers: h.auth() });
    expect(((await first.json()) as { id: string }[]).map((a) => a.id)).toEqual([hostile.id]);
    const next = first.headers.get('x-next-cursor')!;
    const second = await h.app.request(`/api/artifacts?run=${run.id}&limit=1&cursor=${next}`, {
      headers: h.auth(),
    });
    expect(((await second.json()) as { id: string }[]).map((a) => a.id)).toEqual([digest.id]);
    expect(second.headers.get('x-next-cursor')).toBeNull();
  });

  it('refuses a bad limit, and a cursor it never gave or one of another list, in one line', async () => {
    const runs = await h.app.request('/api/runs?limit=1', { headers: h.auth() });
    const runsCursor = ((await runs.json()) as { next_cursor: string }).next_cursor;
    for (const [query, message] of [
      // The same words as every list's (list-queries.ts Paging).
      ['limit=0', 'query limit: must be at least 1'],
      ['limit=501', 'query limit: must be at most 500'],
      ['limit=two', 'query limit: must be a number'],
      ['cursor=nonsense', 'cursor: not one this list gave; start again without it'],
      [`cursor=${runsCursor}`, 'cursor: not one this list gave; start again without it'],
    ] as const) {
      const res = await h.app.request(`/api/artifacts?${query}`, { headers: h.auth() });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(((await res.json()) as { error: string }).error).toBe(message);
    }
  });

  it('the Artifacts page links to the older ones, and that page back to the newest', async () => {
    // A workspace page holds 100: make more than that (a run of 101 tickets).
    const many = await createRunFor(h.engine, 'inbox-triage', { kind: 'manual', detail: null });
    for (let i = 0; i < 101; i++)
      await saveArtifact(
        h.engine.store,
        artifactOf(
          { kind: 'ticket', title: `Ticket ${i}`, contentType: 'text/plain; charset=utf-8', body: `${i}` },
          { workflowId: 'inbox-triage', runId: many.id, itemId: `<t${i}@x>`, decisionId: null },
          new Date(Date.UTC(2026, 10, 30, 9, 0, i)),
        ),
      );
    const first = await (await h.app.request('/artifacts')).text();
    expect(first.match(/data-artifact-id=/g)).toHaveLength(100);
    expect(first).toContain('Ticket 100');
    const older = /href="\/artifacts\?cursor=([^"]+)">Older artifacts</.exec(first);
    expect(older).not.toBeNull();
    const second = await (await h.app.request(`/artifacts?cursor=${older![1]}`)).text();
    // The 104 artifacts: 100 on the first page, the other 4 (the oldest ticket and the three above) here.
    expect(second.match(/data-artifact-id=/g)).toHaveLength(4);
    expect(second).toContain('Ticket 0<');
    expect(second).not.toContain('Older artifacts');
    expect(second).toMatch(/<a href="\/artifacts">Newest<\/a>/);
    // A cursor the page never gave: one line, 400.
    const bad = await h.app.request('/artifacts?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('cursor: not one this list gave; start again without it');
    // One run's page pages within the run.
    const ofRun = await (await h.app.request(`/artifacts?run=${many.id}`)).text();
    expect(ofRun).toMatch(new RegExp(`href="/artifacts\\?run=${many.id}&amp;cursor=[^"]+">Older artifacts<`));
  });
});

describe('on DynamoDB', () => {
  const newStore = dynaliteTables('handoff-artifacts');
  it("reads one run's artifacts with one Query on the run's id prefix, never the whole collection", async () => {
    const store = await newStore();
    const make = (runId: string, itemId: string) =>
      artifactOf(
        { kind: 'ticket', title: itemId, contentType: 'text/plain; charset=utf-8', body: itemId },
        { workflowId: 'w', runId, itemId, decisionId: null },
      );
    for (let i = 0; i < 12; i++) await saveArtifact(store, make(`run_b${i % 3}`, `<i${i}@x>`));
    await saveArtifact(store, make('run_b1x', '<look-alike@x>')); // a longer id with the same start
    const docs = (store as unknown as { client: { send: (c: { input: unknown }) => Promise<unknown> } })
      .client;
    const sent: Record<string, unknown>[] = [];
    const send = docs.send.bind(docs);
    docs.send = (command) => (sent.push(command.input as Record<string, unknown>), send(command));

    const list = await listArtifacts(store, { runId: 'run_b1' });
    expect(list.map((a) => a.run_id)).toEqual(['run_b1', 'run_b1', 'run_b1', 'run_b1']);
    expect(sent).toEqual([
      expect.objectContaining({
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :after',
        ExpressionAttributeValues: { ':pk': 'default#artifacts', ':from': 'run_b1.', ':after': 'run_b1/' },
      }),
    ]);
  });
});

/**
 * "A year of history costs nothing": each read path the issue names reads its records by key
 * (a run's audit and questions by the run's key, the latest answers and runs from the by-time
 * index, what is still moving from the status index), never a whole collection. A store spy
 * notes every full read of a keyed collection; on DynamoDB every Scan and every Query of a
 * collection's partition without a sort-key condition or a Limit is noted too. Both stores:
 * JSON files and dynalite.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pageOfArtifacts } from '../../shared/artifacts/artifact-list.ts';
import { artifactTimesIndexed } from '../../shared/artifacts/artifact-times.ts';
import { artifactOf, saveArtifact } from '../../shared/artifacts/artifacts.ts';
import { activityOn, findDecision, rulesInWords } from '../../shared/assistant/workspace-facts.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { answeredByPerson } from '../../shared/runs/answered.ts';
import { rulesPage } from '../../shared/runs/list-pages.ts';
import { inspectRun } from '../../shared/recorder/views.ts';
import { previewWorkflow } from '../../shared/assistant/preview.ts';
import { getWorkflow } from '../../shared/workflows/repository.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { recordRunReport } from '../../shared/artifacts/report.ts';
import { loadEnv } from '../../shared/config/env.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { housekeeping } from '../../shared/runs/housekeeping.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { readStats } from '../../shared/runs/read-stats.ts';
import { statsOf } from '../../shared/runs/stats.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { createDocumentClient, DynamoDbStore, ensureTable } from '../../shared/store/dynamodb-store.ts';
import { JsonFileStore } from '../../shared/store/json-file-store.ts';
import type { Store } from '../../shared/store/store.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { listDecisions } from '../../shared/runs/decision-repository.ts';
import { writeMaildir } from '../../shared/sources/maildir/generate.ts';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import { createApp } from '../../shared/web/app.ts';
import type { SentRequest } from '../support/dynamodb-requests.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript, type ItemView } from '../support/scripted-model.ts';
import {
  fullQueries,
  spyOnStore,
  watchListings,
  watchRequests,
  type StoreSpy,
} from '../support/store-spy.ts';

/** Sure of receipts, unsure of questions. */
const proposals = (item: ItemView) =>
  item.subject.startsWith('Receipt')
    ? { action: 'archive', confidence: 0.95, reasoning: 'a receipt' }
    : { action: 'archive', confidence: 0.4, reasoning: 'unsure' };

const messages = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    mail({
      from: `shop${i}@vendor${tag}.example`,
      subject: i % 3 === 0 ? `Question ${tag}${i}` : `Receipt ${tag}${i}`,
    }),
  );

describe.each(['JSON files', 'dynalite'])('every history read by key on %s', (backend) => {
  let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
  let client: DynamoDBClient | undefined;
  let sent: SentRequest[] = [];
  let spy: StoreSpy;
  let fixture: EngineFixture;
  let stateDir: string;
  let runId: string;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-keyed-'));
    let store: Store;
    if (backend === 'dynalite') {
      dynalite = await startDynalite();
      client = dynaliteClient(dynalite.endpoint);
      sent = watchRequests(client);
      const table = `handoff-keyed-${randomUUID()}`;
      await ensureTable(client, table);
      store = new DynamoDbStore(createDocumentClient(client), table);
    } else store = new JsonFileStore(stateDir);
    spy = spyOnStore(store);
    // Prepare: history (an earlier run, every question answered), then a run that waits on three questions.
    fixture = await engineFixture({
      messages: messages(9, 'a'),
      store: spy.store,
      model: () => new ScriptedModel(executorScript(proposals)),
    });
    await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    for (const d of await listPending(spy.store)) await decide(fixture.deps, d.id, 'archive', 'old news');
    await writeMaildir(fixture.maildir, messages(9, 'b'));
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    runId = run.id;
    expect((await getRun(spy.store, runId)).status).toBe('waiting');
    app = createApp({
      engine: fixture.deps,
      env: loadEnv({ HANDOFF_STATE_DIR: stateDir, HANDOFF_API_KEY: 'keyed-reads-key' }),
      linkKey: { get: async () => Buffer.alloc(32, 7) },
    });
  });

  afterAll(async () => {
    await fixture.cleanup();
    await fs.rm(stateDir, { recursive: true, force: true });
    client?.destroy();
    await dynalite?.stop();
  });

  /** Runs `act` with the spy cleared, then says what it read in full. */
  async function fullReadsOf(act: () => Promise<unknown>): Promise<string[]> {
    spy.reset();
    sent.splice(0);
    await act();
    return [...spy.fullReads, ...fullQueries(sent)];
  }

  const page = async (url: string) => {
    const res = await app.request(url);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('the spy notes a full read of a keyed collection (so the checks below can fail)', async () => {
    const reads = await fullReadsOf(() => listDecisions(spy.store));
    expect(reads).toContain('list decisions');
    if (backend === 'dynalite') expect(reads).toContain('QueryCommand default#decisions');
  });

  it("the run page reads its run's audit and questions by the run's key", async () => {
    let body = '';
    expect(await fullReadsOf(async () => (body = await page(`/runs/${runId}`)))).toEqual([]);
    expect(body).toContain('Question b0');
  });

  it("on JSON files the run page lists no folder that grows with history (other runs' artifacts, say)", async () => {
    if (backend !== 'JSON files') return; // DynamoDB's reads are checked above, by their requests
    const listingsOfRunPage = async () => {
      const watch = watchListings(stateDir);
      try {
        await page(`/runs/${runId}`);
      } finally {
        watch.stop();
      }
      return [...watch.listings].sort((a, b) => a.dir.localeCompare(b.dir)); // listed side by side: any order
    };
    const before = await listingsOfRunPage();
    expect(before.length).toBeGreaterThan(0); // the watch sees the store's listings
    // History: forty other runs' artifacts (a digest, a ticket each).
    for (let r = 0; r < 40; r++)
      for (const kind of ['digest', 'ticket'] as const)
        await saveArtifact(
          spy.store,
          artifactOf(
            { kind, title: `Old ${kind} ${r}`, contentType: 'text/plain; charset=utf-8', body: `${r}` },
            { workflowId: 'inbox', runId: `run_history_${r}`, itemId: null, decisionId: null },
          ),
        );
    const after = await listingsOfRunPage();
    expect(after).toEqual(before);
  });

  it("`handoff audit --run` reads the run's entries by its key", async () => {
    let entries: Awaited<ReturnType<typeof listAudit>> = [];
    expect(await fullReadsOf(async () => (entries = await listAudit(spy.store, { runId })))).toEqual([]);
    expect(entries.map((e) => e.outcome)).toContain('run_started');
    expect(entries.every((e) => e.run_id === runId)).toBe(true);
    expect(entries.filter((e) => e.outcome === 'acted')).toHaveLength(6);
  });

  it("a digest workflow's report reads its run's entries by key", async () => {
    const run = await getRun(spy.store, runId);
    let body = '';
    const reads = await fullReadsOf(async () => {
      const artifact = await recordRunReport(spy.store, run, { name: 'Digest', digest: true }, 'Six done.');
      body = artifact.body ?? '';
    });
    expect(reads).toEqual([]);
    expect(body).toContain('Receipt b1');
    expect(body).not.toContain('Receipt a1'); // the earlier run's items are not this digest's
  });

  it('Activity reads the latest answers from the by-time index', async () => {
    let body = '';
    expect(await fullReadsOf(async () => (body = await page('/activity')))).toEqual([]);
    expect(body).toContain('Question a0');
  });

  it('the overview and the runs page read runs newest first from the by-time index', async () => {
    expect(await fullReadsOf(() => page('/'))).toEqual([]);
    let body = '';
    expect(await fullReadsOf(async () => (body = await page('/runs')))).toEqual([]);
    expect(body).toContain(runId);
  });

  it('`stats` reads the running totals, what is still moving and one page of the newest runs', async () => {
    let stats: Awaited<ReturnType<typeof readStats>> | undefined;
    expect(await fullReadsOf(async () => (stats = await readStats(spy.store)))).toEqual([]);
    // Assess: the same figures as summing every run (read here, outside the spy's watch).
    const everyRun = statsOf(await listRuns(spy.store));
    expect(stats).toMatchObject({
      overall: everyRun.overall,
      today: everyRun.today,
      this_week: everyRun.this_week,
    });
    expect(stats!.runs.map((r) => r.run_id)).toEqual(everyRun.runs.map((r) => r.run_id));
    expect(stats!.overall.runs).toBe(2); // one finished (in the totals), one waiting (from the status index)
  });

  it("Memory's first page reads a page of rules, newest first", async () => {
    let body = '';
    expect(await fullReadsOf(async () => (body = await page('/memory')))).toEqual([]);
    expect(body).toContain('Memory');
  });

  it('answering one question (and the domain-proposal check) reads by key', async () => {
    const [first] = await listPending(spy.store);
    expect(await fullReadsOf(() => decide(fixture.deps, first!.id, 'archive', null))).toEqual([]);
  });

  it('housekeeping reads only what is still moving', async () => {
    expect(await fullReadsOf(() => housekeeping(fixture.deps))).toEqual([]);
  });

  it('a run reads only the rules that can fire on its items, by what they match', async () => {
    // Rules that cannot fire on the run's items (other senders and domains), and three that can.
    for (let i = 0; i < 30; i++)
      await addRule(spy.store, {
        workflowId: i % 2 ? 'inbox' : null,
        match: i % 3 ? { sender: `other${i}@elsewhere.example` } : { domain: `far${i}.example` },
        action: 'skip',
        note: null,
      });
    const rule = (match: Parameters<typeof addRule>[1]['match'], workflowId: string | null) =>
      addRule(spy.store, { workflowId, match, action: 'archive', note: null });
    await rule({ sender: 'shop0@vendorc.example' }, 'inbox'); // Question c0
    await rule({ keywords: ['question', 'c3'] }, null); // Question c3
    await rule({ domain: 'vendord.example' }, 'inbox'); // no item of this run
    await writeMaildir(fixture.maildir, messages(9, 'c'));
    const reads: string[] = [];
    const ruleKeysRead: string[] = [];
    const counting = new Proxy(spy.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name === 'getMany')
          return async (collection: string, ids: string[]) => {
            if (collection === 'rule_keys') ruleKeysRead.push(...ids);
            return (value as (c: string, i: string[]) => Promise<unknown>).call(target, collection, ids);
          };
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    let run: Awaited<ReturnType<typeof startRun>> | undefined;
    reads.push(
      ...(await fullReadsOf(async () => {
        run = await startRun({ ...fixture.deps, store: counting }, 'inbox', { kind: 'manual', detail: null });
      })),
    );
    expect(reads).toEqual([]);
    // Questions c0 and c3 were answered by the two rules; c6 is asked.
    expect(run!.counts).toMatchObject({ by_your_rules: 2, deferred: 1 });
    // The keys of this run's senders and domains only, each once, in the three scopes: the
    // workflow's, its mailbox's (src:maildir:<path>) and every workflow's.
    expect(new Set(ruleKeysRead).size).toBe(ruleKeysRead.length);
    const scopes = /^(inbox|\*|src:maildir:[^|]+)\|(s\|shop\d@vendorc\.example|d\|vendorc\.example|k)$/;
    expect(ruleKeysRead.filter((k) => !scopes.test(k))).toEqual([]);
    expect(ruleKeysRead).toContain(`src:maildir:${fixture.maildir}|k`);
    expect(ruleKeysRead).toContain('inbox|s|shop0@vendorc.example');
  });

  it("the assistant's facts (a question by id or by words, a day's audit, the rules in words) read by key", async () => {
    const [waiting] = await listPending(spy.store);
    let byId: Awaited<ReturnType<typeof findDecision>> = null;
    let byWords: Awaited<ReturnType<typeof findDecision>> = null;
    let today: Awaited<ReturnType<typeof activityOn>> | undefined;
    let rules: Awaited<ReturnType<typeof rulesInWords>> = [];
    const reads = await fullReadsOf(async () => {
      byId = await findDecision(spy.store, `why did you ask about ${waiting!.id}?`);
      byWords = await findDecision(spy.store, 'why did you ask about shop3@vendora.example');
      today = await activityOn(spy.store, 'today');
      rules = await rulesInWords(spy.store);
    });
    expect(reads).toEqual([]);
    expect(byId).toMatchObject({ decision_id: waiting!.id, status: 'pending' });
    expect(byWords).toMatchObject({ sender: 'shop3@vendora.example', status: 'answered' });
    // Every run of the workspace ran today: the day's audit holds each of them and their items.
    const everyEntry = await listAudit(spy.store); // outside the spy's watch
    expect(today!.runs).toBe(new Set(everyEntry.map((e) => e.run_id)).size);
    expect(today!.counts.archive).toBe(everyEntry.filter((e) => e.outcome === 'acted').length);
    expect(rules.length).toBeGreaterThan(0);
  });

  it("the Workflows pages (each one's last run, its rules) and `handoff rules --search` read a page at a time", async () => {
    let body = '';
    let list = '';
    let found: Awaited<ReturnType<typeof rulesPage>> | undefined;
    const reads = await fullReadsOf(async () => {
      list = await page('/workflows');
      body = await page('/workflows/inbox');
      found = await rulesPage(spy.store, { limit: 50, search: 'elsewhere.example' });
    });
    expect(reads).toEqual([]);
    expect(list).toContain('inbox');
    expect(body).toContain('data-rules');
    // The rules an earlier case added: 20 of 30 match a sender at elsewhere.example.
    expect(found!.items).toHaveLength(20);
    expect(found!.items.every((r) => JSON.stringify(r.match).includes('elsewhere.example'))).toBe(true);
  });

  it("the assistant's preview of a workflow reads the rules of its items' senders by key", async () => {
    // New mail from a sender a rule covers (shop0@vendorc.example, added above), and another.
    await writeMaildir(fixture.maildir, [
      mail({ from: 'shop0@vendorc.example', subject: 'Preview me' }),
      mail({ from: 'new@nowhere.example', subject: 'Question preview' }),
    ]);
    const workflow = await getWorkflow(spy.store, 'inbox');
    let preview: Awaited<ReturnType<typeof previewWorkflow>> | undefined;
    const reads = await fullReadsOf(async () => {
      preview = await previewWorkflow(
        { store: spy.store, credentials: fixture.deps.credentials, threshold: 0.7 },
        workflow,
        30,
      );
    });
    expect(reads).toEqual([]);
    expect(preview).toMatchObject({ ok: true });
    const rows = preview!.ok ? preview!.rows : [];
    expect(rows.find((r) => r.subject === 'Preview me')).toMatchObject({ verdict: 'rule' });
    expect(rows.find((r) => r.subject === 'Question preview')?.verdict).not.toBe('rule');
  });

  it("`handoff inspect RUN` reads the run's pauses by the ids its questions name", async () => {
    let trace: Awaited<ReturnType<typeof inspectRun>> | undefined;
    expect(await fullReadsOf(async () => (trace = await inspectRun(spy.store, runId)))).toEqual([]);
    // The run's three questions (one answered since) are placed in its trace after its pause.
    expect(trace!.entries.filter((e) => e.kind === 'answer')).toHaveLength(3);
  });

  it("the demo's 'more mail' reads the newest settled questions for the answers a person gave", async () => {
    let answered: Awaited<ReturnType<typeof answeredByPerson>> = [];
    expect(await fullReadsOf(async () => (answered = await answeredByPerson(spy.store)))).toEqual([]);
    expect(answered.map((d) => d.subject)).toContain('Question a0');
    expect(answered.every((d) => d.status === 'answered' && d.answer?.by === 'human')).toBe(true);
  });

  it("the artifacts list (the API's, the page's, `handoff artifacts`') pages from the by-time index", async () => {
    for (let n = 0; n < 5; n++)
      await saveArtifact(
        spy.store,
        artifactOf(
          { kind: 'ticket', title: `Ticket ${n}`, contentType: 'text/plain; charset=utf-8', body: `${n}` },
          { workflowId: 'inbox', runId, itemId: `<t${n}@x>`, decisionId: null },
        ),
      );
    // A workspace this build wrote: its first list marks every artifact indexed (artifact-times.ts).
    expect(await artifactTimesIndexed(spy.store)).toBe(true);
    const ids: string[] = [];
    let body = '';
    const reads = await fullReadsOf(async () => {
      let cursor: string | null = null;
      for (let pages = 0; pages < 50; pages++) {
        const res = await app.request(`/api/artifacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: { Authorization: 'Bearer keyed-reads-key' },
        });
        expect(res.status).toBe(200);
        const page = (await res.json()) as { id: string }[];
        expect(page.length).toBeLessThanOrEqual(2);
        ids.push(...page.map((a) => a.id));
        cursor = res.headers.get('x-next-cursor');
        if (!cursor) break;
      }
      body = await page('/artifacts');
      await pageOfArtifacts(spy.store, { limit: 2 });
    });
    expect(reads).toEqual([]);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    expect(new Set(ids).size).toBe(ids.length);
    expect(body).toContain('Ticket 4');
  });

  it('the API lists (runs, questions, rules, audit) page by key, a cursor at a time, through more than a page', async () => {
    const seen: Record<string, string[]> = {};
    const reads = await fullReadsOf(async () => {
      for (const list of [
        '/api/runs',
        '/api/decisions',
        '/api/decisions?status=answered',
        `/api/decisions?run=${runId}`,
        '/api/rules',
        '/api/rules?source=you',
        `/api/audit?run=${runId}`,
        '/api/audit',
      ]) {
        const ids: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 200; pages++) {
          const sep = list.includes('?') ? '&' : '?';
          const res = await app.request(`${list}${sep}limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
            headers: { Authorization: 'Bearer keyed-reads-key' },
          });
          expect({ list, status: res.status }).toEqual({ list, status: 200 });
          const page = (await res.json()) as { items: Record<string, unknown>[]; next_cursor: string | null };
          expect(page.items.length).toBeLessThanOrEqual(2);
          ids.push(...page.items.map((i) => JSON.stringify(i)));
          cursor = page.next_cursor;
          if (!cursor) break;
        }
        seen[list] = ids;
      }
    });
    expect(reads).toEqual([]);
    for (const [list, ids] of Object.entries(seen)) {
      expect({ list, more_than_a_page: ids.length > 2 }).toEqual({ list, more_than_a_page: true });
      expect({ list, each_once: new Set(ids).size }).toEqual({ list, each_once: ids.length });
    }
  });
  /** 400 more waiting, over four runs, seeded once (the last tests here: the others count what waits). */
  let seeded: Promise<{ template: Decision; waiting: number }> | undefined;
  const hundredsWaiting = () =>
    (seeded ??= (async () => {
      const template = (await listPending(spy.store))[0]!;
      await seedWaiting(spy.store, await getRun(spy.store, template.run_id), template, 400, 4);
      return { template, waiting: (await listPending(spy.store)).length };
    })());

  it('Activity with hundreds waiting reads one page of them (and one more), never every waiting question', async () => {
    const { template, waiting } = await hundredsWaiting();
    expect(waiting).toBeGreaterThan(400);
    const rows = (body: string) => [...body.matchAll(/name="pick::(dec_\w+)"/g)].map((m) => m[1]!);

    // Act and assess: the first page, the next one, and one run's.
    for (const url of ['/activity', 'next', `/activity?run=${template.run_id}`]) {
      let body = '';
      const target =
        url === 'next'
          ? /rel="next" href="([^"]+)"/.exec(await page('/activity'))![1]!.replace(/&amp;/g, '&')
          : url;
      expect(await fullReadsOf(async () => (body = await page(target)))).toEqual([]);
      expect({ url, statusReads: spy.statusReads.filter((r) => r.includes('decisions')) }).toEqual({
        url,
        statusReads: [],
      });
      expect(rows(body)).toHaveLength(50);
      // The page's 50 and one more (read again at most once for the next page's cursor), and the 10 latest answers.
      expect(spy.recordsRead.decisions ?? 0).toBeLessThanOrEqual(2 * 51 + 11);
      expect(body).toMatch(new RegExp(`data-pending-badge\\s*>${waiting}<`));
    }
  });

  it('every page with hundreds waiting counts them for the badge without reading them', async () => {
    const { waiting } = await hundredsWaiting();
    expect(waiting).toBeGreaterThan(400);
    const [one] = await listPending(spy.store);
    const pages = [
      '/',
      '/runs',
      '/workflows',
      '/memory',
      '/settings',
      '/schedules',
      '/credentials',
      '/artifacts',
      '/chat',
      '/talk',
      `/decide/${one!.id}`,
    ];
    for (const url of pages) {
      let body = '';
      const reads = await fullReadsOf(async () => (body = await page(url)));
      // Assess: no whole read of what waits; at most one small page of questions (Talk's 50, the decision page's next).
      expect({ url, statusReads: spy.statusReads.filter((r) => r.includes('decisions')) }).toEqual({
        url,
        statusReads: [],
      });
      expect({ url, read: (spy.recordsRead.decisions ?? 0) <= 51 + 11 }).toEqual({ url, read: true });
      expect({ url, badge: new RegExp(`data-pending-badge\\s*>${waiting}<`).test(body) }).toEqual({
        url,
        badge: true,
      });
      if (url === '/' || url === '/runs') expect({ url, reads }).toEqual({ url, reads: [] });
    }
  });

  it('GET /api/decisions?status=pending with hundreds waiting reads a page and one more, by cursor and by filter', async () => {
    const { template, waiting } = await hundredsWaiting();
    const api = async (url: string) => {
      const res = await app.request(url, { headers: { Authorization: 'Bearer keyed-reads-key' } });
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      return (await res.json()) as {
        items: { decision_id: string; sender: string; run_id: string }[];
        next_cursor: string | null;
      };
    };
    // Act and assess: every page of the unfiltered list, each reading its page plus one (and once more for its cursor).
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 20; n++) {
      let got: Awaited<ReturnType<typeof api>> | undefined;
      const url = `/api/decisions?status=pending&limit=50${cursor ? `&cursor=${cursor}` : ''}`;
      expect(await fullReadsOf(async () => (got = await api(url)))).toEqual([]);
      expect(spy.statusReads.filter((r) => r.includes('decisions'))).toEqual([]);
      expect(spy.recordsRead.decisions ?? 0).toBeLessThanOrEqual(2 * 51);
      ids.push(...got!.items.map((d) => d.decision_id));
      cursor = got!.next_cursor;
      if (!cursor) break;
    }
    // Every waiting question once, in a stable order.
    expect(ids).toHaveLength(waiting);
    expect(new Set(ids).size).toBe(waiting);

    // Filters: by the run's key, and by workflow and sender (read ahead only as far as the page needs).
    for (const url of [
      `/api/decisions?status=pending&limit=20&run=${template.run_id}`,
      '/api/decisions?status=pending&limit=20&workflow=inbox',
      '/api/decisions?status=pending&limit=20&from=news.example',
    ]) {
      let got: Awaited<ReturnType<typeof api>> | undefined;
      expect(await fullReadsOf(async () => (got = await api(url)))).toEqual([]);
      expect({ url, statusReads: spy.statusReads.filter((r) => r.includes('decisions')) }).toEqual({
        url,
        statusReads: [],
      });
      expect({ url, shown: got!.items.length, more: got!.next_cursor !== null }).toEqual({
        url,
        shown: 20,
        more: true,
      });
      if (url.includes('from='))
        expect(got!.items.every((d) => d.sender.endsWith('news.example'))).toBe(true);
      if (url.includes('run=')) expect(got!.items.every((d) => d.run_id === template.run_id)).toBe(true);
      expect({ url, readLessThanHalf: (spy.recordsRead.decisions ?? 0) < waiting / 2 }).toEqual({
        url,
        readLessThanHalf: true,
      });
    }
  });
});

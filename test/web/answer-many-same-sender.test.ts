/**
 * A bulk accept where several questions share a sender: a later answer of the batch about that
 * sender replaces the rule an earlier one taught (or, disagreeing, retires it and teaches none).
 * The notice names only the batch's rules that stand, read back by id (no full read of rules),
 * each with an Undo that revokes it. Five batches of each kind, one run each: the order a batch
 * answers in follows its questions' ids, which differ from run to run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedWaiting } from '../../bench/waiting-seed.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { isLive, RuleSchema, type Rule } from '../../shared/records/rule.ts';
import type { Decision } from '../../shared/records/runs.ts';
import { answerEach } from '../../shared/runs/answer-many.ts';
import { getDecision, listPending } from '../../shared/runs/decision-repository.ts';
import { ruleWords } from '../../shared/runs/learned.ts';
import { proposalDomain } from '../../shared/runs/domain-answers.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { getRecord } from '../../shared/store/records.ts';
import { plural } from '../../shared/text/plural.ts';
import { senderDomain } from '../../shared/web/activity-list.ts';
import { ensureTable } from '../../shared/store/dynamodb-store.ts';
import { createApp } from '../../shared/web/app.ts';
import { dynaliteClient, startDynalite } from '../support/dynalite.ts';
import { spyOnStore, type StoreSpy } from '../support/store-spy.ts';
import {
  bulkNoticeOf,
  confirmAccept,
  csrfOf,
  pageClient,
  pageText,
  pageWords,
  undoRuleIds,
  type PageClient,
} from './page-client.ts';
import { makeHarness, type Harness } from './support.ts';

const BATCHES = 5;

/** The store the app runs on: JSON files, or a table of a dynalite of this file's. */
const BACKENDS = [
  { name: 'JSON files', open: async () => ({}), close: async () => {} },
  (() => {
    let dynalite: Awaited<ReturnType<typeof startDynalite>> | undefined;
    return {
      name: 'dynalite',
      open: async () => {
        dynalite = await startDynalite();
        const client = dynaliteClient(dynalite.endpoint);
        const table = `handoff-notice-${randomUUID()}`;
        await ensureTable(client, table);
        client.destroy();
        return {
          USE_DYNAMODB: 'true',
          DYNAMODB_ENDPOINT: dynalite.endpoint,
          HANDOFF_TABLE: table,
          AWS_REGION: 'us-east-1',
        };
      },
      close: async () => dynalite?.stop(),
    };
  })(),
];

describe.each(BACKENDS)('on $name', (backend) => {
  let h: Harness;
  let spy: StoreSpy;
  let b: PageClient;
  let runIds: string[];

  beforeAll(async () => {
    h = await makeHarness(await backend.open());
    const run = await startRun(h.engine, h.workflow.id, { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    const [template] = await listPending(h.engine.store);
    // One run a batch, each with senders asked several times with different suggestions.
    runIds = await seedWaiting(h.engine.store, await getRun(h.engine.store, run.id), template!, 200, BATCHES);
    // The workspace's first answer about a company's mail gathers the earlier ones, once
    // (domain-answers.ts): answered here, it is no batch's read.
    const first = (await listPending(h.engine.store)).find((d) => proposalDomain(d) !== null)!;
    expect((await answerEach(h.engine, [{ id: first.id, action: 'skip', once: true }]))[0]!.ok).toBe(true);
    spy = spyOnStore(h.engine.store);
    b = pageClient(createApp({ engine: { ...h.engine, store: spy.store }, env: h.env, runner: h.launcher }));
  }, 60_000);

  afterAll(async () => {
    await h?.cleanup();
    await backend.close();
  });

  const acceptable = (runId: string) =>
    listPending(h.engine.store).then((all) =>
      all.filter((d) => d.run_id === runId && d.reason !== 'irreversible'),
    );

  /** The group (by `key`) of a run's acceptable questions whose one sender has the most different suggestions. */
  function mostMixed(waiting: readonly Decision[], key: (d: Decision) => string): string {
    const mix = (group: string) => {
      const bySender = new Map<string, Set<string>>();
      for (const d of waiting.filter((w) => key(w) === group))
        bySender.set(d.sender, (bySender.get(d.sender) ?? new Set()).add(d.suggested_action));
      return Math.max(...[...bySender.values()].map((actions) => actions.size));
    };
    const groups = [...new Set(waiting.map(key))].sort((x, y) => mix(y) - mix(x));
    expect(mix(groups[0]!)).toBeGreaterThan(1);
    return groups[0]!;
  }

  /** Accepts a run's group (`from`: an address or a domain) through the confirm step; the notice's address. */
  async function acceptGroup(runId: string, from: string): Promise<string> {
    const page = await pageText(b, `/runs/${runId}`);
    const asked = await b.post('/activity/accept', { _csrf: csrfOf(page), run: runId, sender: from });
    expect(asked.status).toBe(200);
    const confirm = await asked.text();
    spy.reset();
    const done = await confirmAccept(b, confirm, { run: runId, sender: from, back: '/activity' });
    expect(done.status).toBe(303);
    return done.headers.get('Location')!;
  }

  /**
   * One batch: accepts the group, then checks that the notice names exactly the rules of the batch
   * that stand (the newest five of them), that each named one is live, and that each Undo revokes
   * its rule. Returns how many rules it named, and how many of its rules a later answer of it replaced.
   */
  async function acceptAndCheck(runId: string, from: string): Promise<{ named: number; replaced: number }> {
    const answered = new Set((await acceptable(runId)).filter((d) => fromGroup(d, from)).map((d) => d.id));
    const location = await acceptGroup(runId, from);
    const notice = bulkNoticeOf(await pageText(b, location));
    expect(spy.fullReads).toEqual([]);

    const taught = (await listRules(h.engine.store)).filter((r) => answered.has(r.decision_id ?? ''));
    const standing = taught.filter(isLive);
    // (Two answers about one sender that disagree retire the rule the first taught: none may stand.)
    if (standing.length > 0)
      expect(pageWords(notice)).toContain(`Learned ${plural(standing.length, 'rule')} from them`);
    else expect(pageWords(notice)).not.toContain('Learned');
    expect(notice).not.toContain('since replaced');
    const named = undoRuleIds(notice);
    expect(named).toHaveLength(Math.min(standing.length, 5));
    for (const id of named) {
      const rule = standing.find((r) => r.id === id);
      expect({ id, standing: rule !== undefined }).toEqual({ id, standing: true });
      expect(pageWords(notice)).toContain(`${ruleWords(rule!)}.`);
    }
    // Newest first.
    const made = named.map((id) => standing.find((r) => r.id === id)!.created_at);
    expect(made).toEqual([...made].sort().reverse());

    // Each named rule's Undo revokes it, and the page says so.
    for (const id of named) {
      const page = await pageText(b, location);
      const undone = await b.post(`/rules/${id}/undo`, { _csrf: csrfOf(page), back: location });
      expect(undone.status).toBe(303);
      const rule = (await getRecord(h.engine.store, 'rules', RuleSchema, id)) as Rule;
      expect(rule.deleted_at).not.toBeNull();
      expect(isLive(rule)).toBe(false);
      expect(pageWords(bulkNoticeOf(await pageText(b, `${location}&undone=1`)))).toContain(
        `Undone: ${ruleWords(rule)} (revoked).`,
      );
    }
    for (const id of answered) expect((await getDecision(h.engine.store, id)).status).toBe('answered');
    return { named: named.length, replaced: taught.length - standing.length };
  }

  /** One batch a run: the group (by `key`) of each run with a sender asked the most different ways. */
  async function acceptEachRun(key: (d: Decision) => string): Promise<{ named: number; replaced: number }> {
    const seen = { named: 0, replaced: 0 };
    for (const runId of runIds) {
      const batch = await acceptAndCheck(runId, mostMixed(await acceptable(runId), key));
      seen.named += batch.named;
      seen.replaced += batch.replaced;
    }
    return seen;
  }

  const fromGroup = (d: Decision, from: string) =>
    from.includes('@') ? d.sender === from : senderDomain(d.sender) === from;

  it('accepting several questions from one sender names only the rules that stand, each undone by its Undo', async () => {
    const seen = await acceptEachRun((d) => d.sender);
    // The batches did replace rules they taught, and named some that stand.
    expect(Math.min(seen.named, seen.replaced)).toBeGreaterThan(0);
  }, 120_000);

  it('accepting a sender domain with several questions a sender names only the rules that stand', async () => {
    const seen = await acceptEachRun((d) => senderDomain(d.sender));
    expect(Math.min(seen.named, seen.replaced)).toBeGreaterThan(0);
  }, 120_000);
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { resumeIfReady } from '../../shared/runs/run-loop.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import type { Store } from '../../shared/store/store.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const dynamoStore = dynaliteTables('handoff-held');

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const backends: Record<string, () => Promise<Store | undefined>> = {
  'JSON files': async () => undefined, // the fixture's own JsonFileStore
  DynamoDB: dynamoStore,
};

/** An inbox the model is unsure of, item by item: every one is asked about. */
async function unsureInbox(store: Store | undefined, senders: string[], breaks = { afterSubmit: false }) {
  const propose = executorScript(() => ({
    action: 'file_ticket',
    confidence: 0.3,
    reasoning: 'cannot tell',
  }));
  fixture = await engineFixture({
    messages: senders.map((from, i) => mail({ from, subject: `Unsure ${i}` })),
    model: () =>
      new ScriptedModel((results, input) => {
        if (breaks.afterSubmit && results.some((r) => r.name === 'submit_action'))
          throw new Error('the model provider went away');
        return propose(results, input);
      }),
    ...(store ? { store } : {}),
  });
  return fixture;
}

describe.each(Object.entries(backends))(
  'an item is held by the run that asked about it (%s)',
  (_name, makeStore) => {
    it('is neither fetched nor acted on by the next run, even by a rule learned from its answer, before that run resumes', async () => {
      const { deps, store } = await unsureInbox(await makeStore(), ['b@x.example']);
      const first = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
      expect(first.status).toBe('waiting');
      const [decision] = await listPending(store);
      // What a `decide` killed before resuming leaves: the answer, and the rule learned from it.
      const answer = { action: 'file_ticket', note: null, by: 'human', at: new Date().toISOString() };
      await store.update('decisions', { ...decision!, status: 'answered', answer }, decision!.version);
      await addRule(store, {
        workflowId: 'inbox',
        match: { sender: 'b@x.example' },
        action: 'archive',
        note: null,
      });

      const second = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
      expect(second.status).not.toBe('waiting'); // nothing asked again
      expect((await listAudit(store, { runId: second.id })).filter((e) => e.item_id !== null)).toEqual([]);
      expect(await fixture.folder('.Archive')).toEqual([]);

      expect(await resumeIfReady(deps, first.id)).toMatchObject({ status: 'completed' });
      const entries = (await listAudit(store)).filter((e) => e.item_id !== null);
      expect(entries).toEqual([
        expect.objectContaining({
          run_id: first.id,
          outcome: 'acted',
          action: 'file_ticket',
          decided_by: 'human',
        }),
      ]);
      expect(await store.list('tickets')).toHaveLength(1);
    });

    it('two runs started at once ask each question once, and each answer is acted on once', async () => {
      const senders = ['a@x.example', 'b@x.example', 'c@x.example', 'd@x.example'];
      const { deps, store } = await unsureInbox(await makeStore(), senders);
      const runs = await Promise.all(
        [1, 2].map(() => startRun(deps, 'inbox', { kind: 'manual', detail: null })),
      );
      expect(runs.map((r) => r.status)).toContain('waiting');

      const pending = await listPending(store);
      expect(pending.map((d) => d.sender).sort()).toEqual(senders);
      for (const d of pending) await decide(deps, d.id, 'file_ticket', null);

      const acted = (await listAudit(store)).filter((e) => e.item_id !== null);
      expect(acted.map((e) => `${e.outcome} ${e.decided_by}`)).toEqual(senders.map(() => 'acted human'));
      expect(new Set(acted.map((e) => e.item_id)).size).toBe(senders.length);
      expect(await store.list('tickets')).toHaveLength(senders.length);
    });

    it('a run that fails after setting items aside lets them go: the next run asks about them', async () => {
      const breaks = { afterSubmit: true };
      const { deps, store } = await unsureInbox(await makeStore(), ['a@x.example'], breaks);
      expect(await startRun(deps, 'inbox', { kind: 'manual', detail: null })).toMatchObject({
        status: 'failed',
      });
      breaks.afterSubmit = false;
      const next = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
      expect(next.status).toBe('waiting');
      expect((await listPending(store)).map((d) => [d.run_id, d.sender])).toEqual([[next.id, 'a@x.example']]);
    });
  },
);

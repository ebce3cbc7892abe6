import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { addRule } from '../../shared/memory/rules-repository.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun, listRuns } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, bySubject, executorScript } from '../support/scripted-model.ts';

const manual = { kind: 'manual', detail: null } as const;
let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

describe('a run through the gate', () => {
  it('acts on sure items, sets the unsure ones aside untouched, and asks once for all of them', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'news@digest.example', subject: 'Weekly digest' }),
        mail({ from: 'ana@partner.example', subject: 'Partnership' }),
        mail({ from: 'ops@vendor.example', subject: 'Purge request' }),
        mail({ from: 'bot@ci.example', subject: 'Odd score' }),
        mail({ from: 'me@northwind.example', subject: 'Flagged' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(
            bySubject({
              'Weekly digest': { action: 'archive', confidence: 0.9, reasoning: 'a newsletter' },
              Partnership: { action: 'archive', confidence: 0.4, reasoning: 'cannot tell if it is a lead' },
              'Purge request': { action: 'delete', confidence: 0.99, reasoning: 'asks to be deleted' },
              'Odd score': { action: 'archive', confidence: 'very', reasoning: 'malformed score' },
              Flagged: { action: 'archive', confidence: 0.95, force_interrupt: true, reasoning: 'looks off' },
            }),
          ),
        ),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.status).toBe('waiting');
    expect(run.counts).toMatchObject({ acted: 1, confident: 1, deferred: 4 });
    expect(await fixture.folder('.Archive')).toHaveLength(1);
    expect(await fixture.folder('.Trash')).toHaveLength(0);
    expect(await fixture.inbox()).toHaveLength(4); // nothing was done to the deferred items

    const pending = await listPending(fixture.store);
    expect(pending.map((d) => d.subject).sort()).toEqual([
      'Flagged',
      'Odd score',
      'Partnership',
      'Purge request',
    ]);
    expect(new Set(pending.map((d) => d.interrupt_id))).toEqual(new Set([run.interrupt_id]));
    expect(pending.find((d) => d.subject === 'Odd score')).toMatchObject({
      confidence: 0,
      reason: 'low_confidence',
    });
    expect(pending.find((d) => d.subject === 'Purge request')).toMatchObject({ reason: 'irreversible' });
    expect(pending.find((d) => d.subject === 'Partnership')?.reasoning).toBe('cannot tell if it is a lead');
    expect(fixture.notices.filter((n) => n.kind === 'asked')).toHaveLength(1);
  });

  it('carries out each answer on resume: a choice, the suggestion, skip as declined', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'One' }),
        mail({ from: 'b@x.example', subject: 'Two' }),
        mail({ from: 'c@x.example', subject: 'Three' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.5, reasoning: 'unsure' })),
        ),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    const [one, two, three] = (await listPending(fixture.store)).sort((a, b) =>
      a.subject.localeCompare(b.subject),
    );

    expect((await decide(fixture.deps, one!.id, 'file_ticket', 'bugs go to the tracker')).run_status).toBe(
      'waiting',
    );
    expect((await decide(fixture.deps, three!.id, 'approve_suggested', null)).run_status).toBe('waiting');
    const last = await decide(fixture.deps, two!.id, 'skip', 'not mine');
    expect(last).toEqual({ decision_id: two!.id, action: 'skip', run_id: run.id, run_status: 'completed' });
    expect(fixture.notices.find((n) => n.kind === 'completed')).toMatchObject({
      runId: run.id,
      link: `http://ui.test/runs/${run.id}`,
    });

    const audit = (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.item_id);
    const bySubjectId = (d: typeof one) => audit.find((e) => e.item_id === d!.item_id);
    expect(bySubjectId(one)).toMatchObject({
      outcome: 'acted',
      action: 'file_ticket',
      decided_by: 'human',
      confidence: 1,
      note: 'bugs go to the tracker',
    });
    expect(bySubjectId(three)).toMatchObject({ outcome: 'acted', action: 'archive', decided_by: 'human' });
    expect(bySubjectId(two)).toMatchObject({
      outcome: 'declined',
      action: 'skip',
      decided_by: 'human',
      note: 'not mine',
    });
    expect(await fixture.folder('.Archive')).toHaveLength(1);
    expect(await fixture.store.list('tickets')).toHaveLength(1);
    expect((await getRun(fixture.store, run.id)).counts).toMatchObject({
      acted: 2,
      declined: 1,
      deferred: 3,
    });
  });

  it('applies a rule you set before the model is trusted, stamped as memory', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'billing@vendor.example', subject: 'Invoice' }),
        mail({ from: 'x@evilvendor.example', subject: 'Invoice too' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'file_ticket', confidence: 0.2, reasoning: 'unsure' })),
        ),
    });
    await addRule(fixture.store, {
      workflowId: null,
      match: { domain: 'vendor.example' },
      action: 'archive',
      note: 'vendor mail',
    });
    const run = await startRun(fixture.deps, 'inbox', manual);

    expect(run.counts).toMatchObject({ acted: 1, by_your_rules: 1, deferred: 1 });
    const acted = (await listAudit(fixture.store, { runId: run.id })).find((e) => e.outcome === 'acted');
    expect(acted).toMatchObject({ action: 'archive', decided_by: 'memory', confidence: 1 });
    expect((await listPending(fixture.store)).map((d) => d.sender)).toEqual(['x@evilvendor.example']);
  });

  it('refuses a second answer, an unknown decision and an action not offered, changing nothing', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'One' }),
        mail({ from: 'b@x.example', subject: 'Two' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.1, reasoning: 'unsure' })),
        ),
    });
    await startRun(fixture.deps, 'inbox', manual);
    const [first] = await listPending(fixture.store);
    const before = await fixture.store.get('decisions', first!.id);

    await expect(decide(fixture.deps, first!.id, 'delete', null)).rejects.toThrow(/not an option/);
    await expect(decide(fixture.deps, 'dec_nope', 'archive', null)).rejects.toThrow(/no decision "dec_nope"/);
    expect(await fixture.store.get('decisions', first!.id)).toEqual(before);

    await decide(fixture.deps, first!.id, 'archive', null);
    await expect(decide(fixture.deps, first!.id, 'skip', null)).rejects.toThrow(/already answered/);
    expect((await fixture.store.get('decisions', first!.id))?.answer).toMatchObject({ action: 'archive' });
  });

  it('skips an expired decision and never acts on it', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'One' })],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.1, reasoning: 'unsure' })),
        ),
      settings: { decisionTtlHours: 1 / 3_600_000 }, // a millisecond
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);
    await new Promise((r) => setTimeout(r, 5));

    await expect(decide(fixture.deps, decision!.id, 'archive', null)).rejects.toThrow(/expired/);
    expect((await getRun(fixture.store, run.id)).status).toBe('completed');
    const entry = (await listAudit(fixture.store, { runId: run.id })).find(
      (e) => e.item_id === decision!.item_id,
    );
    expect(entry).toMatchObject({ outcome: 'expired', decided_by: null });
    expect(await fixture.inbox()).toHaveLength(1);
    expect(await fixture.folder('.Archive')).toHaveLength(0);
  });

  it('spends no model call when there is nothing new: the run is skipped', async () => {
    let turns = 0;
    fixture = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'One' })],
      model: () =>
        new ScriptedModel((results, input) => {
          turns += 1;
          return executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'sure' }))(
            results,
            input,
          );
        }),
    });
    expect((await startRun(fixture.deps, 'inbox', manual)).status).toBe('completed');
    const used = turns;
    const first = (await listRuns(fixture.store))[0]!;
    const second = await startRun(fixture.deps, 'inbox', manual);
    expect(second.status).toBe('skipped');
    expect(turns).toBe(used);
    // It says why, naming when the last look was.
    expect(second.skip_reason).toBe(`no new mail since ${first.started_at.slice(11, 16)} UTC`);
  });

  it('skips a webhook wake-up with an empty body', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'One' })],
      model: () =>
        new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'sure' }))),
    });
    expect((await startRun(fixture.deps, 'inbox', { kind: 'webhook', detail: '  ' })).status).toBe('skipped');
    expect(await fixture.inbox()).toHaveLength(1);
  });

  it('does not ask again about an item that is waiting in another run, nor redo handled ones', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'Unsure' }),
        mail({ from: 'b@x.example', subject: 'Sure' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(
            bySubject({
              Unsure: { action: 'archive', confidence: 0.1 },
              Sure: { action: 'file_ticket', confidence: 0.9 },
            }),
          ),
        ),
    });
    expect((await startRun(fixture.deps, 'inbox', manual)).status).toBe('waiting');
    expect((await startRun(fixture.deps, 'inbox', manual)).status).toBe('skipped');
    expect(await listPending(fixture.store)).toHaveLength(1);
    expect(await fixture.store.list('tickets')).toHaveLength(1);
  });

  it('leaves an unparseable message alone with an audit entry and goes on', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'Fine' }),
        'garbage without any headers at all' as never,
      ],
      model: () =>
        new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.9, reasoning: 'sure' }))),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    expect(run.status).toBe('completed');
    const outcomes = (await listAudit(fixture.store, { runId: run.id })).map((e) => e.outcome);
    expect(outcomes).toEqual(['run_started', 'unparseable', 'acted', 'run_finished']);
    expect(await fixture.inbox()).toHaveLength(1);
  });

  it('lets only one of two concurrent resumes act', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'a@x.example', subject: 'One' })],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'file_ticket', confidence: 0.1, reasoning: 'unsure' })),
        ),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    const [decision] = await listPending(fixture.store);
    await fixture.store.update(
      'decisions',
      {
        ...decision!,
        status: 'answered',
        answer: { action: 'file_ticket', note: null, by: 'human', at: new Date().toISOString() },
      },
      decision!.version,
    );
    const { resumeIfReady } = await import('../../shared/runs/run-loop.ts');
    await Promise.all([resumeIfReady(fixture.deps, run.id), resumeIfReady(fixture.deps, run.id)]);
    expect(await fixture.store.list('tickets')).toHaveLength(1);
    expect((await getRun(fixture.store, run.id)).status).toBe('completed');
  });

  it('skips every question, never deciding it, when the person cannot be reached — and says so', async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'Unsure' }),
        mail({ from: 'b@x.example', subject: 'Sure' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(
            bySubject({
              Unsure: { action: 'archive', confidence: 0.1 },
              Sure: { action: 'archive', confidence: 0.9 },
            }),
          ),
        ),
    });
    fixture.deps.notifier = {
      notify: async (notice) => {
        if (notice.kind === 'asked') throw new Error('slack: channel_not_found');
      },
    };
    const run = await startRun(fixture.deps, 'inbox', manual);
    expect(run.status).toBe('completed');
    expect(await listPending(fixture.store)).toEqual([]);
    const skipped = (await listAudit(fixture.store, { runId: run.id })).find((e) => e.outcome === 'expired');
    expect(skipped).toMatchObject({
      decided_by: null,
      detail: expect.stringContaining('could not be reached'),
    });
    expect(await fixture.folder('.Archive')).toHaveLength(1); // only the sure one
    expect(fixture.events.some((e) => e.kind === 'failed' && e.text.includes('channel_not_found'))).toBe(
      true,
    );
  });
});

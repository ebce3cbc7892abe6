import { afterEach, describe, expect, it } from '@jest/globals';
import { startedRun, triggerScheduledRun } from '../../shared/aws/lambda-handlers.ts';
import { recordStepFailure } from '../../shared/aws/step-failure.ts';
import { listAudit } from '../../shared/audit/audit.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { MAX_SENDS, STEP_LEASE_MS, UNTAKEN_AFTER_MS } from '../../shared/runs/dispatch-timing.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { getRun, listRuns, scheduledRunId } from '../../shared/runs/run-repository.ts';
import { createRun } from '../../shared/runs/lifecycle.ts';
import { changeRun } from '../support/run-record.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { sweep } from '../../shared/runs/sweep.ts';
import { defaultOnly, dispatchFixture } from '../support/dispatch-fixture.ts';
import type { EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const later = (ms: number) => new Date(Date.now() + ms);
const SCHEDULE = 'cron(0 8 * * ? *)';

async function dispatched() {
  const made = await dispatchFixture();
  fixture = made.fixture;
  return made;
}

/** Runs a fresh run up to its question and answers it with the resume dispatch failing. */
async function answeredWithLostResume() {
  const { sent, failing } = await dispatched();
  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  await runStep(fixture.deps, run.id, 'executor');
  const [decision] = await listPending(fixture.store);
  failing.next = 1;
  const answer = await decide(fixture.deps, decision!.id, 'file_ticket', null);
  return { sent, failing, run, answer, decision: decision! };
}

describe('the sweeper: nothing is left stranded between two processes', () => {
  it('a resume dispatch lost after the last answer is sent again, and the run completes', async () => {
    const { sent, run, answer, decision } = await answeredWithLostResume();
    expect(answer.run_status).toBe('running'); // the answer is saved; the page does not fail
    expect(sent.map((s) => s.node)).toEqual(['executor']); // the resume step never left
    await expect(decide(fixture.deps, decision.id, 'skip', null)).rejects.toThrow(/already/);

    expect(await sweep(fixture.deps)).toEqual({ expired: 0, resent: [], failed: [] }); // too soon
    const swept = await sweep(fixture.deps, later(UNTAKEN_AFTER_MS + 1_000));
    expect(swept.resent).toEqual([run.id]);
    expect(sent.at(-1)).toEqual({ run_id: run.id, node: 'resume' });
    expect((await getRun(fixture.store, run.id)).dispatch).toMatchObject({ node: 'resume', sends: 2 });

    await runStep(fixture.deps, run.id, 'resume');
    expect(await runStep(fixture.deps, run.id, 'completer')).toMatchObject({ status: 'completed' });
    expect(await fixture.store.list('tickets')).toHaveLength(2); // the answer was carried out, once
  });

  it(`a dispatch lost ${MAX_SENDS} times marks the run failed with the reason`, async () => {
    const { failing, run } = await answeredWithLostResume();
    failing.next = MAX_SENDS; // every re-send fails too
    let now = Date.now();
    for (let sweepNo = 1; sweepNo < MAX_SENDS; sweepNo++) {
      now += UNTAKEN_AFTER_MS + 1_000;
      await expect(sweep(fixture.deps, new Date(now))).rejects.toThrow(/PutEvents failed/);
    }
    now += UNTAKEN_AFTER_MS + 1_000;
    expect(await sweep(fixture.deps, new Date(now))).toMatchObject({ resent: [], failed: [run.id] });
    const failed = await getRun(fixture.store, run.id);
    expect(failed).toMatchObject({ status: 'failed', dispatch: null });
    expect(failed.error).toBe(`its dispatch to the resume step was never taken (sent ${MAX_SENDS} times)`);
    expect((await listAudit(fixture.store, { runId: run.id })).at(-1)).toMatchObject({
      outcome: 'run_finished',
      detail: `failed: ${failed.error}`,
    });
  });

  it('a step whose process died is ignored by a second delivery, then sent again after the lease', async () => {
    const { sent } = await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    // The executor's process took the step and died before doing anything (out of memory).
    const takenAt = new Date().toISOString();
    await changeRun(fixture.store, run.id, (r) => ({ dispatch: { ...r.dispatch!, taken_at: takenAt } }));
    const taken = await getRun(fixture.store, run.id);
    expect(await runStep(fixture.deps, run.id, 'executor')).toEqual(taken); // another delivery: ignored
    expect(await fixture.store.list('tickets')).toHaveLength(0);

    expect((await sweep(fixture.deps, later(STEP_LEASE_MS - 60_000))).resent).toEqual([]);
    expect((await sweep(fixture.deps, later(STEP_LEASE_MS + 1_000))).resent).toEqual([run.id]);
    expect(sent.at(-1)).toEqual({ run_id: run.id, node: 'executor' });
    expect(await runStep(fixture.deps, run.id, 'executor')).toMatchObject({ status: 'waiting' });
    expect(await fixture.store.list('tickets')).toHaveLength(1);
  });

  it('a step that throws gives its claim back, so the function retry runs it', async () => {
    await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    const models = fixture.deps.models;
    fixture.deps.models = () => Promise.reject(new Error('cold start failed'));
    await expect(runStep(fixture.deps, run.id, 'executor')).rejects.toThrow(/cold start failed/);
    expect((await getRun(fixture.store, run.id)).dispatch).toMatchObject({
      node: 'executor',
      taken_at: null,
    });
    fixture.deps.models = models;
    expect(await runStep(fixture.deps, run.id, 'executor')).toMatchObject({ status: 'waiting' });
  });

  it('resumes a waiting run whose last answer was saved by a process killed before it resumed it', async () => {
    const { sent } = await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await runStep(fixture.deps, run.id, 'executor');
    const [decision] = await listPending(fixture.store);
    // What `decide` had written when it was killed: the answer, and nothing after it.
    const answer = { action: 'file_ticket', note: null, by: 'human', at: new Date().toISOString() };
    await fixture.store.update('decisions', { ...decision!, status: 'answered', answer }, decision!.version);

    await sweep(fixture.deps);
    expect(sent.at(-1)).toEqual({ run_id: run.id, node: 'resume' });
    await runStep(fixture.deps, run.id, 'resume');
    expect(await runStep(fixture.deps, run.id, 'completer')).toMatchObject({ status: 'completed' });
    expect(await fixture.store.list('tickets')).toHaveLength(2); // the answer was carried out, once
  });

  it('leaves waiting runs and runs that are moving alone', async () => {
    const { sent } = await dispatched();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await runStep(fixture.deps, run.id, 'executor');
    const before = await getRun(fixture.store, run.id);
    expect(before.status).toBe('waiting');
    expect(await sweep(fixture.deps, later(STEP_LEASE_MS * 2))).toEqual({
      expired: 0,
      resent: [],
      failed: [],
    });
    expect(await getRun(fixture.store, run.id)).toEqual(before);
    expect(sent).toHaveLength(1);
  });
});

describe('a scheduled trigger delivered twice starts one run', () => {
  const input = (time: string) => ({ workflow_id: 'inbox', schedule: SCHEDULE, scheduled_time: time });

  it('keys the run on (workflow, scheduled time): the same firing again is a duplicate', async () => {
    const { sent } = await dispatched();
    const first = startedRun(
      await triggerScheduledRun(defaultOnly(fixture.deps), input('2026-11-30T08:00:00Z')),
    );
    expect(first).toMatchObject({ status: 'running', duplicate: false });
    expect(first.run_id).toBe(scheduledRunId('default', 'inbox', '2026-11-30T08:00:00Z'));
    const again = startedRun(
      await triggerScheduledRun(defaultOnly(fixture.deps), input('2026-11-30T08:00:00Z')),
    );
    expect(again).toMatchObject({ run_id: first.run_id, duplicate: true });
    expect(await listRuns(fixture.store)).toHaveLength(1);
    expect((await listAudit(fixture.store)).filter((e) => e.outcome === 'run_started')).toHaveLength(1);
    // Its dispatch was not taken yet, so it was sent again; the two deliveries run the executor once.
    expect(sent).toEqual([
      { run_id: first.run_id, node: 'executor' },
      { run_id: first.run_id, node: 'executor' },
    ]);
    await runStep(fixture.deps, first.run_id, 'executor');
    await runStep(fixture.deps, first.run_id, 'executor');
    expect(await fixture.store.list('tickets')).toHaveLength(1);

    const next = startedRun(
      await triggerScheduledRun(defaultOnly(fixture.deps), input('2026-12-01T08:00:00Z')),
    );
    expect(next).toMatchObject({ duplicate: false });
    expect(next.run_id).not.toBe(first.run_id);
  });

  it('re-runs a trigger step whose process died, but not one still within its timeout', async () => {
    const { sent } = await dispatched();
    const time = '2026-11-30T08:00:00Z';
    const id = scheduledRunId('default', 'inbox', time);
    await createRun(fixture.store, 'inbox', { kind: 'schedule', detail: SCHEDULE }, id); // then it died
    expect(await triggerScheduledRun(defaultOnly(fixture.deps), input(time))).toMatchObject({
      duplicate: true,
      status: 'running',
    });
    expect(sent).toEqual([]); // started moments ago: the first delivery may still be running it

    await changeRun(fixture.store, id, () => ({ started_at: new Date(Date.now() - 120_000).toISOString() }));
    expect(await triggerScheduledRun(defaultOnly(fixture.deps), input(time))).toMatchObject({
      duplicate: true,
    });
    expect(sent).toEqual([{ run_id: id, node: 'executor' }]);
    expect(await listRuns(fixture.store)).toHaveLength(1);
  });

  it('a trigger that gave up marks its keyed run failed with the reason', async () => {
    await dispatched();
    const time = '2026-11-30T08:00:00Z';
    const id = scheduledRunId('default', 'inbox', time);
    await createRun(fixture.store, 'inbox', { kind: 'schedule', detail: SCHEDULE }, id);
    const record = {
      requestContext: {
        functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:handoff-trigger',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: input(time),
      responsePayload: { errorType: 'Error', errorMessage: 'DynamoDB throttled' },
    };
    expect(await recordStepFailure(defaultOnly(fixture.deps), record)).toMatchObject({
      run_id: id,
      marked: true,
    });
    expect((await getRun(fixture.store, id)).error).toBe(
      'handoff-trigger gave up after 3 attempts: Error: DynamoDB throttled',
    );
  });
});

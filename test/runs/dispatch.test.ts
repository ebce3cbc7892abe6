import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from '@jest/globals';
import { listAudit } from '../../shared/audit/audit.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { dispatchFixture } from '../support/dispatch-fixture.ts';
import type { EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

async function dispatchedFixture() {
  const made = await dispatchFixture();
  fixture = made.fixture;
  return made.sent;
}

describe('each node in its own process (dispatch mode)', () => {
  it('trigger, executor, resume and completer each run as a separate step', async () => {
    const steps = await dispatchedFixture();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'schedule', detail: 'cron(0 8 * * ? *)' });
    expect(run).toMatchObject({ status: 'running', dispatch: { node: 'executor' } });
    expect(steps).toEqual([{ run_id: run.id, node: 'executor' }]);
    expect(await fixture.store.list('tickets')).toHaveLength(0); // the trigger step acted on nothing

    const paused = await runStep(fixture.deps, run.id, 'executor');
    expect(paused).toMatchObject({ status: 'waiting', dispatch: null });
    expect(await fixture.store.list('tickets')).toHaveLength(1);

    const [decision] = await listPending(fixture.store);
    const answer = await decide(fixture.deps, decision!.id, 'file_ticket', null);
    expect(answer.run_status).toBe('running'); // the answer hands the run to the resume step
    expect(steps.at(-1)).toEqual({ run_id: run.id, node: 'resume' });

    expect(await runStep(fixture.deps, run.id, 'resume')).toMatchObject({
      status: 'running',
      dispatch: { node: 'completer' },
    });
    expect(await fixture.store.list('tickets')).toHaveLength(2);
    expect(await runStep(fixture.deps, run.id, 'completer')).toMatchObject({ status: 'completed' });
    expect(steps.map((s) => s.node)).toEqual(['executor', 'resume', 'completer']);
    expect((await listAudit(fixture.store, { runId: run.id })).at(-1)?.outcome).toBe('run_finished');
  });

  it('an executor whose items cannot be read (the mailbox went away after the trigger) fails the run with the reason and tells; it never completes as if empty', async () => {
    await dispatchedFixture();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await rm(fixture.maildir, { recursive: true, force: true }); // gone between the two processes
    const failed = await runStep(fixture.deps, run.id, 'executor');
    expect(failed).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^the items could not be read: /),
    });
    expect(fixture.notices).toEqual([
      expect.objectContaining({ kind: 'failed', runId: run.id, reason: failed.error }),
    ]);
    expect(await fixture.store.list('tickets')).toEqual([]);
  });

  it('ignores a duplicate or late delivery of a step', async () => {
    await dispatchedFixture();
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await runStep(fixture.deps, run.id, 'executor');
    const before = await getRun(fixture.store, run.id);
    expect(await runStep(fixture.deps, run.id, 'executor')).toEqual(before);
    expect(await runStep(fixture.deps, run.id, 'completer')).toEqual(before);
    expect(await fixture.store.list('tickets')).toHaveLength(1);
  });

  it('a failing completer marks the run failed with its reason and never re-runs the executor', async () => {
    await dispatchedFixture();
    fixture.deps.notifier = {
      notify: async (notice) => {
        if (notice.kind === 'completed') throw new Error('SNS is down');
      },
    };
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await runStep(fixture.deps, run.id, 'executor');
    const [decision] = await listPending(fixture.store);
    await decide(fixture.deps, decision!.id, 'skip', null);
    await runStep(fixture.deps, run.id, 'resume');
    const failed = await runStep(fixture.deps, run.id, 'completer');
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('SNS is down') });
    const actedBefore = (await listAudit(fixture.store)).filter((e) => e.outcome === 'acted').length;
    await runStep(fixture.deps, run.id, 'completer'); // Lambda's retry
    await runStep(fixture.deps, run.id, 'executor');
    expect((await listAudit(fixture.store)).filter((e) => e.outcome === 'acted')).toHaveLength(actedBefore);
    expect(await fixture.store.list('tickets')).toHaveLength(1);
  });

  it('a retried step re-sends a dispatch that was lost, so the run is not stranded', async () => {
    const made = await dispatchFixture();
    fixture = made.fixture;
    const steps = made.sent;
    const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
    await runStep(fixture.deps, run.id, 'executor');
    const [decision] = await listPending(fixture.store);
    await decide(fixture.deps, decision!.id, 'skip', null);
    made.failing.next = 1;
    await expect(runStep(fixture.deps, run.id, 'resume')).rejects.toThrow(/PutEvents failed/);
    expect(steps.at(-1)?.node).toBe('resume'); // the completer dispatch never left
    await runStep(fixture.deps, run.id, 'resume'); // Lambda's retry of the same event
    expect(steps.at(-1)).toEqual({ run_id: run.id, node: 'completer' });
    expect(await runStep(fixture.deps, run.id, 'completer')).toMatchObject({ status: 'completed' });
  });
});

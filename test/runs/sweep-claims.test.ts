import { afterEach, describe, expect, it } from '@jest/globals';
import { auditIdOf, claimOutcome, claimOutcomes, getOutcome } from '../../shared/actions/outcomes.ts';
import { appendAudit, listAudit } from '../../shared/audit/audit.ts';
import { failRun } from '../../shared/runs/lifecycle.ts';
import { ANSWER_CARRY_LEASE_MS, STEP_LEASE_MS } from '../../shared/runs/dispatch-timing.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { changeRun } from '../support/run-record.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { sweep } from '../../shared/runs/sweep.ts';
import { dispatchFixture } from '../support/dispatch-fixture.ts';
import { dynaliteTables } from '../support/dynalite.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { ScriptedModel, executorScript } from '../support/scripted-model.ts';

const dynamoStore = dynaliteTables('handoff-sweep');

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const later = (ms: number) => new Date(Date.now() + ms);
const manual = { kind: 'manual', detail: null } as const;

/** A dispatch-mode engine on a fresh DynamoDB table. */
async function onDynamoDb() {
  const made = await dispatchFixture(await dynamoStore());
  fixture = made.fixture;
  return made;
}

/** What an executor step that took the run and then died left: the step taken, and claims. */
async function diedMidAction(runId: string, items: { id: string; audited: boolean }[]): Promise<void> {
  const takenAt = new Date().toISOString();
  await changeRun(fixture.store, runId, (r) => ({ dispatch: { ...r.dispatch!, taken_at: takenAt } }));
  for (const item of items) {
    const claim = await claimOutcome(fixture.store, {
      workflow_id: 'inbox',
      item_id: item.id,
      run_id: runId,
      action: 'file_ticket',
      status: 'acting',
    });
    if (item.audited)
      // the action was carried out in full; the process died before settling
      await appendAudit(fixture.store, {
        id: auditIdOf(claim!),
        run_id: runId,
        workflow_id: 'inbox',
        item_id: item.id,
        outcome: 'acted',
        action: 'file_ticket',
        decided_by: 'model',
      });
  }
}

const statusOf = async (itemId: string) => (await getOutcome(fixture.store, 'inbox', itemId))?.status;

describe('the sweeper settles the claims a dead step left acting', () => {
  it('after the step lease runs out: the audit entry decides, else failed to be checked by hand', async () => {
    await onDynamoDb();
    const run = await startRun(fixture.deps, 'inbox', manual);
    await diedMidAction(run.id, [
      { id: 'done-in-full', audited: true },
      { id: 'half-done', audited: false },
    ]);

    // Within the lease the step may still be working: its claims are left alone.
    expect((await sweep(fixture.deps, later(STEP_LEASE_MS - 60_000))).resent).toEqual([]);
    expect([await statusOf('done-in-full'), await statusOf('half-done')]).toEqual(['acting', 'acting']);

    expect((await sweep(fixture.deps, later(STEP_LEASE_MS + 1_000))).resent).toEqual([run.id]);
    expect([await statusOf('done-in-full'), await statusOf('half-done')]).toEqual(['acted', 'failed']);
    const audit = await listAudit(fixture.store, { runId: run.id });
    expect(audit.filter((e) => e.item_id === 'done-in-full')).toHaveLength(1);
    expect(audit.filter((e) => e.item_id === 'half-done')).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        action: 'file_ticket',
        detail: expect.stringContaining('check the item by hand'),
      }),
    ]);

    // The step sent again works the rest and never touches the settled claims.
    expect(await runStep(fixture.deps, run.id, 'executor')).toMatchObject({ status: 'waiting' });
    expect([await statusOf('done-in-full'), await statusOf('half-done')]).toEqual(['acted', 'failed']);
  });

  it('of a run marked failed after its step gave up, but not those of a run a live step works on', async () => {
    await onDynamoDb();
    const failed = await startRun(fixture.deps, 'inbox', manual);
    await diedMidAction(failed.id, [{ id: 'orphan', audited: false }]);
    await failRun(fixture.deps, failed.id, 'handoff-executor gave up after 3 attempts', { step: 'executor' });
    const live = await startRun(fixture.deps, 'inbox', manual);
    await diedMidAction(live.id, [{ id: 'in-hand', audited: false }]); // taken a moment ago: alive

    await sweep(fixture.deps);
    expect(await statusOf('orphan')).toBe('failed');
    expect((await listAudit(fixture.store, { runId: failed.id })).map((e) => e.item_id)).toContain('orphan');
    expect(await statusOf('in-hand')).toBe('acting');
    expect((await listAudit(fixture.store, { runId: live.id })).map((e) => e.item_id)).not.toContain(
      'in-hand',
    );
  });

  it("of a waiting run whose answer's carrying-out died, once older than a carrying-out may take", async () => {
    fixture = await engineFixture({
      messages: [
        mail({ from: 'a@x.example', subject: 'One' }),
        mail({ from: 'b@y.example', subject: 'Two' }),
      ],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.2, reasoning: 'unsure' })),
        ),
    });
    const run = await startRun(fixture.deps, 'inbox', manual);
    expect(run.status).toBe('waiting');
    const [asked] = await listPending(fixture.store);
    // As an answering process killed mid-action leaves it: the item's hold taken over, acting.
    const [claim] = await claimOutcomes(
      fixture.store,
      [
        {
          workflow_id: 'inbox',
          item_id: asked!.item_id,
          run_id: run.id,
          action: 'archive',
          status: 'acting',
        },
      ],
      { heldItems: new Set([asked!.item_id]) },
    );
    expect(claim?.status).toBe('acting');

    await sweep(fixture.deps, later(ANSWER_CARRY_LEASE_MS - 30_000)); // it may still be at work
    expect(await statusOf(asked!.item_id)).toBe('acting');
    await sweep(fixture.deps, later(ANSWER_CARRY_LEASE_MS + 1_000));
    expect(await statusOf(asked!.item_id)).toBe('failed');
    expect(
      (await listAudit(fixture.store, { runId: run.id })).filter((e) => e.item_id === asked!.item_id),
    ).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        detail: expect.stringContaining('check the item by hand'),
      }),
    ]);
  });
});

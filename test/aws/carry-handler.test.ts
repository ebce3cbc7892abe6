/**
 * Answers carried out as they arrive where steps run in their own functions (AWS): the answer
 * is sent to be carried out (`handoff.carry`) and the resume function's handler carries it
 * out once; a send that fails loses nothing, the run's resume step carries it out at its
 * last answer. A JSON-file store; the loop and deployment tests cover DynamoDB and the bus.
 */
import { afterEach, expect, it } from '@jest/globals';
import { resumeHandler } from '../../shared/aws/lambda-handlers.ts';
import { claimOutcomes, auditIdOf, settleOutcome } from '../../shared/actions/outcomes.ts';
import { appendAudit, listAudit } from '../../shared/audit/audit.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import type { Step } from '../../shared/runs/dispatch.ts';
import { runStep } from '../../shared/runs/run-loop.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { defaultOnly } from '../support/dispatch-fixture.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { executorScript, ScriptedModel } from '../support/scripted-model.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** A run waiting on three questions, then given a dispatcher as on AWS (its sends recorded). */
async function waitingOnThree(carry: (work: { decision_id: string }) => Promise<void>) {
  fixture = await engineFixture({
    messages: [
      mail({ from: 'a@one.example', subject: 'First' }),
      mail({ from: 'b@two.example', subject: 'Second' }),
      mail({ from: 'c@three.example', subject: 'Third' }),
    ],
    model: () =>
      new ScriptedModel(executorScript(() => ({ action: 'archive', confidence: 0.2, reasoning: 'unsure' }))),
  });
  const run = await startRun(fixture.deps, 'inbox', { kind: 'manual', detail: null });
  expect(run.status).toBe('waiting');
  const steps: { run_id: string; node: Step }[] = [];
  fixture.deps.dispatcher = { dispatch: async (step) => void steps.push(step), carry };
  const pending = await listPending(fixture.store);
  expect(pending).toHaveLength(3);
  return { run, steps, pending };
}

const humanEntries = async (runId: string) =>
  (await listAudit(fixture.store, { runId })).filter((e) => e.decided_by === 'human');

it('an answer while others wait is sent to be carried out; the handler carries it out once, while the run waits', async () => {
  const sent: string[] = [];
  const { run, pending } = await waitingOnThree(async (work) => void sent.push(work.decision_id));
  const [first] = pending;
  await decide(fixture.deps, first!.id, 'archive', null, { once: true });
  // Sent, not done here: the answering process acts on nothing.
  expect(sent).toEqual([first!.id]);
  expect(await fixture.folder('.Archive')).toHaveLength(0);

  const handler = resumeHandler(defaultOnly(fixture.deps));
  const event = { 'detail-type': 'handoff.carry', detail: { decision_id: first!.id } };
  expect(await handler(event)).toEqual({ decision_id: first!.id, run_id: run.id, outcome: 'acted' });
  expect(await fixture.folder('.Archive')).toHaveLength(1);
  expect((await humanEntries(run.id)).map((e) => [e.item_id, e.outcome])).toEqual([
    [first!.item_id, 'acted'],
  ]);
  const waiting = await getRun(fixture.store, run.id);
  expect(waiting).toMatchObject({ status: 'waiting', counts: { acted: 1, by_you: 1 } });

  // EventBridge delivers at least once: again, nothing more is done.
  expect(await handler(event)).toMatchObject({ decision_id: first!.id, outcome: null });
  expect(await handler({ 'detail-type': 'handoff.carry', detail: { decision_id: 'dec_nope' } })).toEqual({
    decision_id: 'dec_nope',
    outcome: null,
    reason: 'no such decision',
  });
  expect(await getRun(fixture.store, run.id)).toEqual(waiting);
  expect(await fixture.folder('.Archive')).toHaveLength(1);
  await expect(handler({ 'detail-type': 'handoff.nope', detail: {} })).rejects.toThrow(
    /^not a handoff.step or handoff.carry event: detail-type/,
  );
});

it('a send the bus refuses loses nothing: the answer is kept, and the resume step carries it out once at the last answer', async () => {
  const { run, steps, pending } = await waitingOnThree(async () => {
    throw new Error('EventBridge refused 1 event(s) on bus: ThrottlingException');
  });
  const [first, ...rest] = pending;
  const answered = await decide(fixture.deps, first!.id, 'archive', null, { once: true });
  expect(answered).toMatchObject({ run_status: 'waiting' });
  expect(await fixture.folder('.Archive')).toHaveLength(0);
  expect(await humanEntries(run.id)).toEqual([]);

  for (const d of rest) await decide(fixture.deps, d.id, 'skip', null, { once: true });
  expect(steps).toEqual([{ run_id: run.id, node: 'resume' }]);
  await runStep(fixture.deps, run.id, 'resume');
  expect(await fixture.folder('.Archive')).toHaveLength(1);
  const entries = await humanEntries(run.id);
  expect(entries.map((e) => e.item_id).sort()).toEqual(pending.map((d) => d.item_id).sort()); // once each
  expect((await getRun(fixture.store, run.id)).counts).toMatchObject({ acted: 1, by_you: 1, declined: 2 });
});

it('the resume step waits for an answer being carried out in another function right now, and counts it as that function settles it', async () => {
  const { run, steps, pending } = await waitingOnThree(async () => {}); // sent; its function is slow
  const [first, ...rest] = pending;
  await decide(fixture.deps, first!.id, 'archive', null, { once: true });
  // The carrying function has claimed the item and is in the middle of its action.
  const [claim] = await claimOutcomes(
    fixture.store,
    [
      {
        workflow_id: run.workflow_id,
        item_id: first!.item_id,
        run_id: run.id,
        action: 'archive',
        status: 'acting',
      },
    ],
    { heldItems: new Set([first!.item_id]) },
  );
  expect(claim).toMatchObject({ status: 'acting' });
  for (const d of rest) await decide(fixture.deps, d.id, 'skip', null, { once: true });
  expect(steps).toEqual([{ run_id: run.id, node: 'resume' }]);

  const resumed = runStep(fixture.deps, run.id, 'resume');
  await new Promise((resolve) => setTimeout(resolve, 400));
  // The carrying function finishes: its entry, then its claim settled.
  await appendAudit(fixture.store, {
    id: auditIdOf(claim!),
    run_id: run.id,
    workflow_id: run.workflow_id,
    item_id: first!.item_id,
    outcome: 'acted',
    action: 'archive',
    decided_by: 'human',
    detail: null,
  });
  await settleOutcome(fixture.store, claim!, 'acted');
  await resumed;

  const entries = await listAudit(fixture.store, { runId: run.id });
  const forFirst = entries.filter((e) => e.item_id === first!.item_id);
  expect(forFirst.map((e) => [e.outcome, e.decided_by])).toEqual([['acted', 'human']]); // not "check by hand"
  expect((await getRun(fixture.store, run.id)).counts).toMatchObject({
    acted: 1,
    by_you: 1,
    declined: 2,
    failed: 0,
  });
});

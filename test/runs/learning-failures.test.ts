/**
 * Learning that fails is never dropped: the answer stands, the failure is kept with its
 * reason, the Memory page and `handoff doctor` show it, the sweep tries it again (up to
 * MAX_LEARN_ATTEMPTS, not before LEARN_RETRY_AFTER_MS), and a success clears it. Where learning
 * is sent elsewhere (AWS), a send that fails is kept the same way.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadEnv } from '../../shared/config/env.ts';
import { learningCheck } from '../../shared/doctor/checks.ts';
import type { Decision } from '../../shared/records/runs.ts';
import type { EngineDeps } from '../../shared/runs/deps.ts';
import {
  LEARN_RETRY_AFTER_MS,
  learnAfterAnswer,
  learnFromAnswerById,
  LearningFailedError,
  MAX_LEARN_ATTEMPTS,
  retryLearning,
} from '../../shared/runs/learning.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { createApp } from '../../shared/web/app.ts';
import { answeredDecision } from '../support/answered-decision.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

const DOWN = 'the model endpoint answered 503 (Service Unavailable)';

/** An engine whose learner's model works or is down, over one store. */
async function engines() {
  fixture = await engineFixture({ messages: [], model: () => new OfflineModel() });
  const down: EngineDeps = {
    ...fixture.deps,
    models: async () => {
      throw new Error(DOWN);
    },
  };
  return { up: fixture.deps, down };
}

/** An answered decision, stored as the answer saved it. */
async function stored(deps: EngineDeps, over: Partial<Decision> = {}): Promise<Decision> {
  const decision = answeredDecision({ action: 'archive', ...over });
  await deps.store.put('decisions', decision);
  return decision;
}

const later = (ms: number) => new Date(Date.now() + ms);

describe('learning that fails', () => {
  it('is kept with its reason and told on the run feed; the answer stands', async () => {
    const { down } = await engines();
    const decision = await stored(down);
    await learnAfterAnswer(down, decision);
    expect(await down.store.get('learning_failures', decision.id)).toMatchObject({
      id: decision.id,
      run_id: decision.run_id,
      sender: decision.sender,
      subject: decision.subject,
      error: DOWN,
      attempts: 1,
    });
    expect(fixture.events).toContainEqual(
      expect.objectContaining({
        channel: decision.run_id,
        kind: 'failed',
        text: `Could not learn from ${decision.id}: ${DOWN}`,
      }),
    );
    expect(await down.store.get('decisions', decision.id)).toMatchObject({ status: 'answered' });
    expect(await down.store.list('rules')).toEqual([]);
  });

  it('is shown on the Memory page and fails the doctor’s learning check, naming the answer and why', async () => {
    const { down, up } = await engines();
    const decision = await stored(down);
    await learnAfterAnswer(down, decision);
    const app = createApp({
      engine: up,
      env: loadEnv({ HANDOFF_STATE_DIR: path.join(fixture.dir, 'state') }),
    });
    const page = await (await app.request('http://127.0.0.1/memory')).text();
    expect(page).toContain('Not learned: 1 answer');
    expect(page).toContain(`Could not learn (tried 1 time): ${DOWN}`);
    expect(await learningCheck(up.store).run()).toMatchObject({
      ok: false,
      reason: `1 answer could not be learned from: ${decision.id} (${decision.subject}, tried 1x): ${DOWN}`,
    });
  });

  it('is tried again by the sweep once it is old enough, and cleared once learned', async () => {
    const { down, up } = await engines();
    const decision = await stored(down);
    await learnAfterAnswer(down, decision);
    // Too soon: left for the next sweep.
    expect(await retryLearning(up, later(LEARN_RETRY_AFTER_MS - 60_000))).toEqual([]);
    // Still down: one more attempt, with the reason.
    expect(await retryLearning(down, later(LEARN_RETRY_AFTER_MS + 1))).toEqual([decision.id]);
    expect(await down.store.get('learning_failures', decision.id)).toMatchObject({
      attempts: 2,
      error: DOWN,
    });
    // The model is back: learned, the record gone, the doctor content.
    expect(await retryLearning(up, later(2 * LEARN_RETRY_AFTER_MS + 1))).toEqual([decision.id]);
    expect(await up.store.get('learning_failures', decision.id)).toBeUndefined();
    expect(await up.store.list('rules')).toEqual([
      expect.objectContaining({ decision_id: decision.id, match: { sender: decision.sender } }),
    ]);
    expect(await learningCheck(up.store).run()).toMatchObject({ ok: true });
    const page = await (
      await createApp({
        engine: up,
        env: loadEnv({ HANDOFF_STATE_DIR: path.join(fixture.dir, 'state') }),
      }).request('http://127.0.0.1/memory')
    ).text();
    expect(page).not.toContain('Not learned');
  });

  it(`stops being retried after ${MAX_LEARN_ATTEMPTS} attempts, and stays shown`, async () => {
    const { down } = await engines();
    const decision = await stored(down);
    await learnAfterAnswer(down, decision);
    for (let attempt = 2; attempt <= MAX_LEARN_ATTEMPTS; attempt++)
      expect(await retryLearning(down, later(attempt * LEARN_RETRY_AFTER_MS))).toEqual([decision.id]);
    expect(await retryLearning(down, later(99 * LEARN_RETRY_AFTER_MS))).toEqual([]);
    expect(await down.store.get('learning_failures', decision.id)).toMatchObject({
      attempts: MAX_LEARN_ATTEMPTS,
    });
    expect((await learningCheck(down.store).run()).ok).toBe(false);
  });

  it('in the function that owns model calls, throws after recording, so its host retries it', async () => {
    const { down } = await engines();
    const decision = await stored(down);
    await expect(learnFromAnswerById(down, decision.id)).rejects.toThrow(LearningFailedError);
    await expect(learnFromAnswerById(down, decision.id)).rejects.toThrow(
      `learning from ${decision.id} failed: ${DOWN}`,
    );
    expect(await down.store.get('learning_failures', decision.id)).toMatchObject({ attempts: 2 });
  });

  it('to be sent where learning runs is kept the same way, and the sweep sends it again', async () => {
    const { up } = await engines();
    const sent: string[] = [];
    let failing = true;
    const dispatched: EngineDeps = {
      ...up,
      dispatcher: {
        dispatch: async () => {},
        learn: async ({ decision_id }) => {
          if (failing) throw new Error('EventBridge refused 1 event(s): InternalFailure');
          sent.push(decision_id);
        },
      },
    };
    const decision = await stored(dispatched);
    await learnAfterAnswer(dispatched, decision);
    expect(await up.store.get('learning_failures', decision.id)).toMatchObject({
      error: 'could not be sent to the learner: EventBridge refused 1 event(s): InternalFailure',
      attempts: 1,
    });
    failing = false;
    expect(await retryLearning(dispatched, later(LEARN_RETRY_AFTER_MS + 1))).toEqual([decision.id]);
    expect(sent).toEqual([decision.id]);
    // Sent is not learned: the record stays until the learner clears it.
    expect(await up.store.get('learning_failures', decision.id)).toMatchObject({ attempts: 1 });
    await learnFromAnswerById(up, decision.id);
    expect(await up.store.get('learning_failures', decision.id)).toBeUndefined();
  });
});

import { afterEach, describe, expect, it } from '@jest/globals';
import { NotifyError } from '../../shared/notify/notifier.ts';
import { failRun } from '../../shared/runs/lifecycle.ts';
import { decide } from '../../shared/runs/decide.ts';
import { listPending } from '../../shared/runs/decision-repository.ts';
import { getRun } from '../../shared/runs/run-repository.ts';
import { createRunFor, startRun } from '../../shared/runs/start-run.ts';
import { engineFixture, mail, type EngineFixture } from '../support/engine-fixture.ts';
import { executorScript, ScriptedModel } from '../support/scripted-model.ts';

let fixture: EngineFixture;
afterEach(() => fixture?.cleanup());

/** An inbox whose model provider has given up: every model call fails. */
async function givenUp(): Promise<EngineFixture> {
  fixture = await engineFixture({
    messages: [mail({ from: 'a@x.example', subject: 'Hello' })],
    model: () =>
      new ScriptedModel(() => {
        throw new Error('the model provider gave up after 3 attempts');
      }),
  });
  return fixture;
}

describe('a failed run tells the person', () => {
  it('when its model provider gave up: the reason and a link to the run, once', async () => {
    const { deps, notices, store } = await givenUp();
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    const failed = await getRun(store, run.id);
    expect(failed.status).toBe('failed');
    expect(notices).toEqual([
      {
        kind: 'failed',
        runId: run.id,
        workflowName: 'Test inbox',
        reason: failed.error,
        link: `http://ui.test/runs/${run.id}`,
      },
    ]);
    expect(failed.error).toContain('gave up after 3 attempts');
  });

  it('when its model provider cannot be made: the run fails at once, not at the next crash sweep', async () => {
    const { deps, notices, store } = await givenUp();
    deps.models = () => Promise.reject(new Error('ANTHROPIC_API_KEY is not set'));
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    expect(run).toMatchObject({ status: 'failed', error: 'ANTHROPIC_API_KEY is not set' });
    expect(await getRun(store, run.id)).toMatchObject({ status: 'failed', owner: null });
    expect(notices).toEqual([
      expect.objectContaining({ kind: 'failed', runId: run.id, reason: 'ANTHROPIC_API_KEY is not set' }),
    ]);
  });

  it('when its model provider cannot be made as it resumes: the run fails at once, not left running', async () => {
    fixture = await engineFixture({
      messages: [mail({ from: 'ana@partner.example', subject: 'Partnership' })],
      model: () =>
        new ScriptedModel(
          executorScript(() => ({ action: 'archive', confidence: 0.4, reasoning: 'unsure' })),
        ),
    });
    const { deps, notices, store } = fixture;
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    const [decision] = await listPending(store);
    deps.models = () => Promise.reject(new Error('ANTHROPIC_API_KEY is not set'));

    const answer = await decide(deps, decision!.id, 'archive', null);
    expect(answer.run_status).toBe('failed');
    expect(await getRun(store, run.id)).toMatchObject({
      status: 'failed',
      error: 'ANTHROPIC_API_KEY is not set',
      owner: null,
    });
    expect(notices.filter((n) => n.kind === 'failed')).toEqual([
      expect.objectContaining({ runId: run.id, reason: 'ANTHROPIC_API_KEY is not set' }),
    ]);
    expect(await fixture.folder('.Archive')).toHaveLength(0); // nothing was done to the item
  });

  it('when the process running it gave up (a step whose retries ran out)', async () => {
    const { deps, notices } = await givenUp();
    const run = await createRunFor(deps, 'inbox', { kind: 'manual', detail: null });
    expect(await failRun(deps, run.id, 'handoff-executor gave up after 3 attempts')).toMatchObject({
      marked: true,
    });
    expect(notices).toEqual([
      expect.objectContaining({
        kind: 'failed',
        runId: run.id,
        reason: 'handoff-executor gave up after 3 attempts',
        link: `http://ui.test/runs/${run.id}`,
      }),
    ]);
  });

  it('and a notice that cannot go out leaves the run failed, and says so on its feed', async () => {
    const { deps, events, store } = await givenUp();
    deps.notifier = {
      notify: () => Promise.reject(new NotifyError('slack', 'chat.postMessage refused: not_in_channel')),
    };
    const run = await startRun(deps, 'inbox', { kind: 'manual', detail: null });
    expect((await getRun(store, run.id)).status).toBe('failed');
    expect(events.filter((e) => e.channel === run.id && e.kind === 'failed').map((e) => e.text)).toEqual([
      expect.stringMatching(/^Run failed: .*gave up after 3 attempts/),
      'Nobody was told the run failed: could not notify via slack: chat.postMessage refused: not_in_channel',
    ]);
  });
});

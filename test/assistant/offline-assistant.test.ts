import { Model, type BaseModelConfig } from '@strands-agents/sdk';
import { afterEach, describe, expect, it } from '@jest/globals';
import { sendMessage } from '../../shared/assistant/chat-service.ts';
import { getChat, readTurns } from '../../shared/chats/chat-repository.ts';
import { listRules } from '../../shared/memory/rules-repository.ts';
import { OfflineModel } from '../../shared/models/offline/offline-model.ts';
import { describeSchedule, scheduleOf } from '../../shared/models/offline/describe-workflow.ts';
import { startRun } from '../../shared/runs/start-run.ts';
import { DEMO_MESSAGES } from '../../shared/sources/maildir/demo.ts';
import { engineFixture, type EngineFixture } from '../support/engine-fixture.ts';

let fx: EngineFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

/** A provider that is down: every call fails before a token. */
class DownModel extends Model<BaseModelConfig> {
  updateConfig(): void {}
  getConfig(): BaseModelConfig {
    return { modelId: 'down' };
  }
  async *stream(): AsyncGenerator<never> {
    throw new Error('connect ECONNREFUSED 127.0.0.1:9');
  }
}

describe('the offline assistant', () => {
  it('reads schedule phrases as EventBridge expressions and says them back in words', () => {
    expect(scheduleOf('every weekday at 8')).toBe('cron(0 8 ? * MON-FRI *)');
    expect(scheduleOf('every day at 7:30pm')).toBe('cron(30 19 * * ? *)');
    expect(scheduleOf('each Sunday at noon')).toBe('cron(0 12 ? * SUN *)');
    expect(scheduleOf('every 2 hours')).toBe('rate(2 hours)');
    expect(scheduleOf('hourly')).toBe('rate(1 hour)');
    expect(scheduleOf('archive newsletters')).toBeNull();
    expect(describeSchedule('cron(0 8 ? * MON-FRI *)')).toBe('every weekday at 08:00 (UTC)');
    expect(describeSchedule('rate(15 minutes)')).toBe('every 15 minutes');
  });

  it('a rule asked for in words waits for the yes, then is a rule you set', async () => {
    fx = await engineFixture({ messages: [], model: () => new OfflineModel() });
    const asked = await sendMessage(fx.deps, undefined, 'Always archive mail from news@digest.example');
    expect(asked.confirm).toMatchObject({ tool: 'add_rule' });
    expect(await listRules(fx.store)).toEqual([]);
    await sendMessage(fx.deps, asked.chat_id, 'yes');
    expect(await listRules(fx.store)).toMatchObject([
      { match: { sender: 'news@digest.example' }, action: 'archive', source: 'you' },
    ]);
  });

  it('tells what is waiting, and takes an answer in words only after the yes', async () => {
    fx = await engineFixture({ messages: [...DEMO_MESSAGES], model: () => new OfflineModel() });
    const run = await startRun(fx.deps, 'inbox', { kind: 'manual', detail: null });
    expect(run.status).toBe('waiting');
    const reply = await sendMessage(fx.deps, undefined, "what's waiting for me?");
    expect(reply.text).toMatch(/^(1 question waits|\d+ questions wait) for you: "/); // never "question(s)"
    expect(reply.confirm).toBeUndefined();

    // Answered in words, by id: it waits for the yes, then goes through decide.
    const decision = (await fx.store.listWithStatus('decisions', 'pending'))[0]!;
    const asked = await sendMessage(fx.deps, reply.chat_id, `skip ${decision.id}`);
    expect(asked.confirm).toMatchObject({ tool: 'answer_decision' });
    expect(await fx.store.get('decisions', decision.id)).toMatchObject({ status: 'pending' });
    const answered = await sendMessage(fx.deps, reply.chat_id, 'yes');
    expect(answered).toMatchObject({ run_id: run.id });
    expect(await fx.store.get('decisions', decision.id)).toMatchObject({
      status: 'answered',
      answer: { action: 'skip' },
    });
  });

  it('a model that cannot be reached is told in the chat in one line; the message is kept, nothing is done', async () => {
    fx = await engineFixture({ messages: [], model: () => new DownModel() });
    const reply = await sendMessage(
      fx.deps,
      undefined,
      'every weekday at 8, archive newsletters in my inbox',
    );
    expect(reply.text).toMatch(/^I could not finish that: .*ECONNREFUSED.*Nothing was changed; try again\.$/);
    expect(reply.confirm).toBeUndefined();
    const chat = await getChat(fx.store, reply.chat_id);
    expect((await readTurns(fx.store, chat)).map((t) => t.role)).toEqual(['user', 'assistant']);
    expect((await fx.store.list('workflows')).map((w) => w.id)).toEqual(['inbox']);
  });
});

import type { Model } from '@strands-agents/sdk';
import { NotifyError, type NotifyChannel } from '../notify/notifier.ts';
import { callSlack, type SlackConfig } from '../notify/slack-api.ts';
import { learningFailures } from '../runs/learning.ts';
import type { Store } from '../store/store.ts';
import { broken, ok, type Check } from './check.ts';
import { plural } from '../text/plural.ts';

const MODEL_TIMEOUT_MS = 20_000;

/**
 * The model provider, with one tiny real request through it. The offline model needs no
 * network and is reported as working without a call.
 */
export function modelCheck(provider: string, makeModel: () => Promise<Model>): Check {
  return {
    name: `model (${provider})`,
    async run() {
      if (provider === 'local') return ok('offline model: runs in-process, no network or key needed');
      const model = await makeModel();
      const { Message, TextBlock } = await import('@strands-agents/sdk');
      const modelId = model.getConfig().modelId ?? 'default model';
      const started = performance.now();
      let stop: string | undefined;
      const prompt = new Message({
        role: 'user',
        content: [new TextBlock('Reply with the single word OK.')],
      });
      for await (const event of model.stream([prompt], {
        cancelSignal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
      }))
        if (event.type === 'modelMessageStopEvent') stop = event.stopReason;
      if (!stop) return broken(`${modelId}: the stream ended without a complete message`);
      return ok(`${modelId} answered in ${Math.round(performance.now() - started)} ms`);
    },
  };
}

/** Slack's `auth.test`: the token is valid, and who it posts as. */
export function slackAuthCheck(
  name: string,
  config: () => Omit<SlackConfig, 'channel'> & { channel?: string },
): Check {
  return {
    name,
    async run() {
      const slack = config();
      let who: Record<string, unknown>;
      try {
        who = await callSlack({ channel: '', ...slack }, 'auth.test', {});
      } catch (error) {
        if (error instanceof NotifyError) return broken(error.reason);
        throw error;
      }
      const user = typeof who.user === 'string' ? who.user : 'the bot';
      const team = typeof who.team === 'string' ? who.team : 'its workspace';
      return ok(`token works: posts as ${user} in ${team}${slack.channel ? ` to ${slack.channel}` : ''}`);
    },
  };
}

/** The channel NOTIFY_CHANNEL names; console always works. */
export function notifyCheck(
  channel: NotifyChannel,
  adapters: { slack?: () => SlackConfig; sns?: Check },
): Check {
  const name = `notify (${channel})`;
  if (channel === 'slack' && adapters.slack) return slackAuthCheck(name, adapters.slack);
  if (channel === 'sns' && adapters.sns) return { ...adapters.sns, name };
  if (channel === 'console')
    return { name, run: async () => ok('notices are printed on stderr of the process running the engine') };
  return { name, run: async () => broken(`no check for NOTIFY_CHANNEL=${channel} in this host`) };
}

/** The store answers a read (DynamoDB credentials and table, or the state directory). */
export function storeCheck(store: Store, where: string): Check {
  return {
    name: 'store',
    async run() {
      await store.list('settings');
      return ok(where);
    },
  };
}

/** Answers the learner could not learn from: each one named with why (shared/runs/learning.ts). */
export function learningCheck(store: Store): Check {
  return {
    name: 'learning',
    async run() {
      const failures = await learningFailures({ store });
      if (failures.length === 0) return ok('every answer was learned from');
      const shown = failures
        .slice(0, 3)
        .map((f) => `${f.id} (${f.subject}, tried ${f.attempts}x): ${f.error}`)
        .join('; ');
      const more = failures.length > 3 ? `; and ${failures.length - 3} more (see Memory)` : '';
      return broken(`${plural(failures.length, 'answer')} could not be learned from: ${shown}${more}`);
    },
  };
}

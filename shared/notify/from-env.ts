import type { Env } from '../config/env.ts';
import { InvalidInputError, isError } from '../errors/index.ts';
import { ConsoleNotifier, NotifyError, type Notice, type Notifier, type NotifyChannel } from './notifier.ts';
import { redact, slackConfigFrom } from './slack-api.ts';
import { SlackNotifier } from './slack-notifier.ts';

export interface NotifierOptions {
  /** Makes the SNS notifier (shared/aws); the host supplies it, so this module never loads the AWS SDK. */
  sns?: () => Notifier;
  /** Where the Slack settings are read from. */
  source?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/**
 * The notifier NOTIFY_CHANNEL selects: console, slack or sns. A channel that is not
 * configured fails here, at start-up, with one line; a delivery that fails later throws
 * NotifyError, whatever the adapter threw.
 */
export function notifierFromEnv(env: Pick<Env, 'NOTIFY_CHANNEL'>, options: NotifierOptions = {}): Notifier {
  switch (env.NOTIFY_CHANNEL) {
    case 'console':
      return new ConsoleNotifier();
    case 'slack': {
      const config = slackConfigFrom(options.source ?? process.env);
      return failVisibly(
        'slack',
        new SlackNotifier(options.fetch ? { ...config, fetch: options.fetch } : config),
        config.token,
      );
    }
    case 'sns':
      if (!options.sns)
        throw new InvalidInputError(
          'NOTIFY_CHANNEL=sns needs an SNS topic: set NOTIFY_TOPIC_ARN (the deployed stack sets it)',
        );
      return failVisibly('sns', options.sns());
  }
}

/** Turns anything a notifier throws into a one-line NotifyError (with any secret removed). */
export function failVisibly(channel: NotifyChannel, notifier: Notifier, secret?: string): Notifier {
  return {
    async notify(notice: Notice): Promise<void> {
      try {
        await notifier.notify(notice);
      } catch (error) {
        if (error instanceof NotifyError) throw error;
        const reason = isError(error) ? `${error.name}: ${error.message}` : String(error);
        throw new NotifyError(channel, redact(reason, secret));
      }
    },
  };
}

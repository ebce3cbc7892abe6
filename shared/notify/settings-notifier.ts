import type { Env } from '../config/env.ts';
import { readProfile } from '../profile/profile.ts';
import { readStoredSettings } from '../settings/settings.ts';
import type { Store } from '../store/store.ts';
import { notifierFromEnv, type NotifierOptions } from './from-env.ts';
import type { Notice, Notifier, NotifyChannel } from './notifier.ts';

/**
 * The notifier the profile names, else the one the Settings page chose (stored), else NOTIFY_CHANNEL — read at each notice,
 * so changing the channel in the web app needs no restart and no file edit. A channel that
 * is not configured fails the notice (visibly), not the process.
 */
export function settingsNotifier(
  store: Store,
  env: Pick<Env, 'NOTIFY_CHANNEL'>,
  options: NotifierOptions & {
    /** Fills Slack settings from the workspace's credentials (read at each Slack notice). */
    slackSecrets?: () => Promise<NodeJS.ProcessEnv>;
  } = {},
): Notifier {
  const made = new Map<NotifyChannel, Notifier>();
  return {
    async notify(notice: Notice): Promise<void> {
      const channel =
        (await readProfile(store)).notify_channel ??
        (await readStoredSettings(store))?.notify_channel ??
        env.NOTIFY_CHANNEL;
      if (channel === 'slack' && options.slackSecrets) {
        const source = await options.slackSecrets();
        return notifierFromEnv({ NOTIFY_CHANNEL: channel }, { ...options, source }).notify(notice);
      }
      let notifier = made.get(channel);
      if (!notifier) {
        notifier = notifierFromEnv({ NOTIFY_CHANNEL: channel }, options);
        made.set(channel, notifier);
      }
      await notifier.notify(notice);
    },
  };
}

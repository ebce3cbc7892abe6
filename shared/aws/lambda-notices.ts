/**
 * How a Lambda function tells the person: its notify channel (SNS to its topic, or Slack),
 * and links under UI_BASE_URL. Apart from the engine, so a function that only marks runs
 * failed (step-failed) reaches nothing else.
 */
import type { EngineDeps } from '../runs/deps.ts';
import { HandoffError } from '../errors/index.ts';
import { DecisionLinks } from '../links/decision-links.ts';
import type { LinkKey } from '../links/link-key.ts';
import { notifierFromEnv } from '../notify/from-env.ts';
import { NotifyError, type Notifier } from '../notify/notifier.ts';
import type { LambdaClients } from './clients.ts';
import type { LambdaFunction } from './deployment.ts';
import type { LambdaEnv } from './lambda-env.ts';
import { SnsNotifier } from './sns-notifier.ts';

type NoticeEnv = Pick<
  LambdaEnv<'UI_BASE_URL', 'NOTIFY_TOPIC_ARN'>,
  'NOTIFY_CHANNEL' | 'NOTIFY_TOPIC_ARN' | 'UI_BASE_URL'
>;

/**
 * What a function that only marks runs failed needs to tell the person: the notify
 * channel and the run's page under UI_BASE_URL, in `workspace` (a run link is not signed:
 * no link key).
 */
export function failureNoticesForLambda(
  fn: LambdaFunction,
  env: NoticeEnv,
  clients: Pick<LambdaClients, 'sns'>,
  workspace?: string,
): Pick<EngineDeps, 'notifier' | 'links'> {
  return {
    notifier: notifierForLambda(env, clients),
    links: new DecisionLinks(noLinkKey(fn), () => env.UI_BASE_URL, workspace),
  };
}

/** The key of a function that neither signs nor checks decision links. */
export function noLinkKey(fn: LambdaFunction): LinkKey {
  return {
    get: () =>
      Promise.reject(
        new HandoffError(
          `the ${fn} function is not bound to the link key, so it cannot sign or check decision links`,
        ),
      ),
  };
}

/**
 * The channel NOTIFY_CHANNEL names (SNS to NOTIFY_TOPIC_ARN, or Slack), failing with
 * NotifyError like any channel. A function without a channel (a Lambda log reaches nobody)
 * gets a notifier that fails visibly, should it ever have to notify.
 */
export function notifierForLambda(
  env: Pick<NoticeEnv, 'NOTIFY_CHANNEL' | 'NOTIFY_TOPIC_ARN'>,
  clients: Pick<LambdaClients, 'sns'>,
): Notifier {
  if (env.NOTIFY_CHANNEL === 'console')
    return {
      notify: () =>
        Promise.reject(
          new NotifyError('console', 'this Lambda function has no notify channel: set NOTIFY_TOPIC_ARN'),
        ),
    };
  const topic = env.NOTIFY_TOPIC_ARN;
  return notifierFromEnv(env, topic ? { sns: () => new SnsNotifier(clients.sns, topic) } : {});
}

import { GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import { regionOption } from '../config/aws-region.ts';
import { broken, ok, type Check } from './check.ts';

/**
 * The SNS topic notices go to: `GetTopicAttributes` proves the credentials, the region
 * and the topic; a topic nobody has confirmed a subscription to reaches no one, which
 * is reported as broken.
 */
export function snsTopicCheck(client: Pick<SNSClient, 'send'>, topicArn: string | undefined): Check {
  return {
    name: 'notify (sns)',
    async run() {
      if (!topicArn) return broken('NOTIFY_TOPIC_ARN is not set: the topic notices are published to');
      const out = await client.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
      const name = topicArn.split(':').at(-1) ?? topicArn;
      const confirmed = Number(out.Attributes?.SubscriptionsConfirmed ?? '0');
      const pending = Number(out.Attributes?.SubscriptionsPending ?? '0');
      if (confirmed === 0)
        return broken(
          `topic ${name} has no confirmed subscription${pending ? ` (${pending} waiting: confirm the email from AWS)` : ''}: notices reach nobody`,
        );
      return ok(`topic ${name}: ${confirmed} confirmed subscription${confirmed === 1 ? '' : 's'}`);
    },
  };
}

/** The SNS topic check over a new SNS client for `region`, destroyed once the check has run. */
export function snsTopicCheckIn(region: string | undefined, topicArn: string | undefined): Check {
  return {
    name: 'notify (sns)',
    async run() {
      const client = new SNSClient(regionOption(region));
      try {
        return await snsTopicCheck(client, topicArn).run();
      } finally {
        client.destroy();
      }
    },
  };
}

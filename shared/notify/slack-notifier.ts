import { scheduleFailedText, type Notice, type Notifier } from './notifier.ts';
import { callSlack, slackEscape, slackLink, type SlackConfig } from './slack-api.ts';

/**
 * Posts notices to a Slack channel with `chat.postMessage`. A question notice carries
 * the signed deep link to the first decision. A refusal or an unreachable Slack throws
 * NotifyError; nothing is retried here, so a notice is never posted twice.
 */
export class SlackNotifier implements Notifier {
  constructor(private readonly config: SlackConfig) {}

  async notify(notice: Notice): Promise<void> {
    await callSlack(this.config, 'chat.postMessage', {
      channel: this.config.channel,
      text: slackText(notice),
      unfurl_links: false,
      unfurl_media: false,
    });
  }
}

/** The message, in Slack's mrkdwn. */
export function slackText(notice: Notice): string {
  const name = `*${slackEscape(notice.workflowName)}*`;
  if (notice.kind === 'completed')
    return `${name}: ${slackEscape(notice.summary)} ${slackLink(notice.link, 'See the run')}.`;
  if (notice.kind === 'failed')
    return `${name}: run ${slackEscape(notice.runId)} failed: ${slackEscape(notice.reason)} ${slackLink(notice.link, 'See the run')}.`;
  if (notice.kind === 'schedule_failed')
    return `${name}: ${slackEscape(scheduleFailedText(notice.reason))} ${slackLink(notice.link, 'See the schedules')}.`;
  const s = notice.count === 1 ? '' : 's';
  return [
    `${name} paused with ${notice.count} question${s} for you (run ${slackEscape(notice.runId)}).`,
    `${slackLink(notice.link, 'Answer the first one')}. The link opens one decision, works once and expires; only your answer changes anything.`,
  ].join('\n');
}

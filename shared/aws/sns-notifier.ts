import type { SNSClient } from '@aws-sdk/client-sns';
import { scheduleFailedText, type Notice, type Notifier } from '../notify/notifier.ts';
import { clientOf, type ClientRef } from './lazy-client.ts';
import { needs } from '../config/needs.ts';

needs('topic'); // sns:Publish on NOTIFY_TOPIC_ARN (and its key)

/** SNS refuses a Subject longer than this. */
export const MAX_SUBJECT = 100;

/**
 * Publishes notices to an SNS topic (email subscribers get the deep link). The `kind`
 * message attribute lets a subscription filter, e.g. only 'asked'.
 */
export class SnsNotifier implements Notifier {
  constructor(
    private readonly client: ClientRef<SNSClient>,
    private readonly topicArn: string,
  ) {}

  async notify(notice: Notice): Promise<void> {
    const { PublishCommand } = await import('@aws-sdk/client-sns');
    await (
      await clientOf(this.client)
    ).send(
      new PublishCommand({
        TopicArn: this.topicArn,
        Subject: snsSubject(subjectOf(notice)),
        Message: messageOf(notice),
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: notice.kind },
          ...(notice.kind === 'schedule_failed'
            ? {}
            : { run_id: { DataType: 'String', StringValue: notice.runId } }),
        },
      }),
    );
  }
}

function subjectOf(notice: Notice): string {
  if (notice.kind === 'completed') return `Handoff: ${notice.workflowName} finished`;
  if (notice.kind === 'failed') return `Handoff: ${notice.workflowName} failed`;
  if (notice.kind === 'schedule_failed') return `Handoff: ${notice.workflowName}'s schedule failed`;
  const s = notice.count === 1 ? '' : 's';
  return `Handoff: ${notice.count} question${s} for you (${notice.workflowName})`;
}

function messageOf(notice: Notice): string {
  if (notice.kind === 'completed')
    return `${notice.workflowName}: ${notice.summary}\n\nSee the run: ${notice.link}\n`;
  if (notice.kind === 'failed')
    return `${notice.workflowName}: run ${notice.runId} failed: ${notice.reason}\n\nSee the run: ${notice.link}\n`;
  if (notice.kind === 'schedule_failed')
    return `${notice.workflowName}: ${scheduleFailedText(notice.reason)}\n\nSee the schedules: ${notice.link}\n`;
  const s = notice.count === 1 ? '' : 's';
  return [
    `${notice.workflowName} paused with ${notice.count} question${s} for you (run ${notice.runId}).`,
    '',
    `Answer the first one here: ${notice.link}`,
    '',
    'The link opens one decision, works once and expires; opening it changes nothing, only your answer does.',
    '',
  ].join('\n');
}

/**
 * A valid SNS Subject: printable ASCII only (no line breaks), starting with a letter,
 * digit or punctuation, at most 100 characters.
 */
export function snsSubject(text: string): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim();
  const subject = ascii.length > MAX_SUBJECT ? `${ascii.slice(0, MAX_SUBJECT - 3).trimEnd()}...` : ascii;
  return subject || 'Handoff';
}

import { HandoffError } from '../errors/index.ts';
import { plural } from '../text/plural.ts';

/** What the person is told: a run paused with questions, finished, or failed; a schedule that could not be kept. */
export type Notice =
  | { kind: 'asked'; runId: string; workflowName: string; count: number; link: string }
  | {
      kind: 'completed';
      runId: string;
      workflowName: string;
      summary: string;
      /** The run's page (its inspector), built from UI_BASE_URL. */
      link: string;
    }
  | {
      kind: 'failed';
      runId: string;
      workflowName: string;
      /** Why the run failed, in one line. */
      reason: string;
      /** The run's page (its inspector), built from UI_BASE_URL. */
      link: string;
    }
  | {
      /** A workflow's schedule could not be made, changed or removed: its runs do not start on time. */
      kind: 'schedule_failed';
      workflowName: string;
      /** Why, in one line. */
      reason: string;
      /** The Schedules page, built from UI_BASE_URL. */
      link: string;
    };

/** The notify port; adapters: console (here), Slack and SNS. */
export interface Notifier {
  /** Delivers the notice, or throws NotifyError: a notice that did not go out is never silent. */
  notify(notice: Notice): Promise<void>;
}

export type NotifyChannel = 'console' | 'slack' | 'sns';

/** A notice could not be delivered. The message is one line and never carries a credential. */
export class NotifyError extends HandoffError {
  constructor(
    readonly channel: NotifyChannel,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`could not notify via ${channel}: ${reason}`, options);
  }
}

/** Prints notices to stderr, so stdout stays clean for `--json`. */
export class ConsoleNotifier implements Notifier {
  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {}

  async notify(notice: Notice): Promise<void> {
    if (notice.kind === 'asked')
      this.write(
        `[handoff] ${notice.workflowName}: ${plural(notice.count, 'question')} waiting for you — ${notice.link} (or: handoff pending)`,
      );
    else if (notice.kind === 'failed')
      this.write(
        `[handoff] ${notice.workflowName}: run ${notice.runId} failed: ${notice.reason} — ${notice.link}`,
      );
    else if (notice.kind === 'schedule_failed')
      this.write(`[handoff] ${notice.workflowName}: ${scheduleFailedText(notice.reason)} — ${notice.link}`);
    else this.write(`[handoff] ${notice.workflowName}: ${notice.summary} — ${notice.link}`);
  }
}

/** What a schedule_failed notice says, after the workflow's name. */
export function scheduleFailedText(reason: string): string {
  return `its schedule could not be updated, so its runs do not start on time until the workflow is saved again: ${reason}`;
}

/** What the person is told: a run paused with questions, or a run finished. */
export type Notice =
  | { kind: 'asked'; runId: string; workflowName: string; count: number; link: string }
  | { kind: 'completed'; runId: string; workflowName: string; summary: string };

/** The notify port; adapters: console (here), Slack and SNS. */
export interface Notifier {
  notify(notice: Notice): Promise<void>;
}

/** Prints notices to stderr, so stdout stays clean for `--json`. */
export class ConsoleNotifier implements Notifier {
  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {}

  async notify(notice: Notice): Promise<void> {
    if (notice.kind === 'asked')
      this.write(
        `[handoff] ${notice.workflowName}: ${notice.count} question(s) waiting for you — ${notice.link} (or: handoff pending)`,
      );
    else this.write(`[handoff] ${notice.workflowName}: ${notice.summary}`);
  }
}

/**
 * A workflow in plain words: what the confirmation card and "show me the workflow" show, and
 * what a refinement changed. Built in code from the config and the store (the profile's time
 * zone, which credentials are set), never by the model.
 */
import type { PreviewRow, WorkflowCard } from '../chats/chat-records.ts';
import type { Credentials } from '../credentials/credentials.ts';
import { describeSchedule } from '../models/offline/describe-workflow.ts';
import { readProfile } from '../profile/profile.ts';
import type { Store } from '../store/store.ts';
import { credentialsNeeded } from '../workflows/credentials-needed.ts';
import type { Workflow } from '../workflows/schema.ts';
import { plural } from '../text/plural.ts';

export interface CardDeps {
  store: Store;
  credentials: Pick<Credentials, 'names'>;
  /** The workspace's default threshold (CONFIDENCE_THRESHOLD). */
  threshold: number;
}

/** The preview as the card carries it. */
export type CardPreview = WorkflowCard['preview'];

/** The credentials a workflow needs that are not set, in the order it needs them. */
export async function missingCredentials(
  credentials: Pick<Credentials, 'names'>,
  workflow: Workflow,
): Promise<string[]> {
  const have = await credentials.names();
  return credentialsNeeded(workflow).filter((name) => !have.has(name));
}

/** The workflow in plain words, with the preview made of it (if any). */
export async function workflowCard(
  deps: CardDeps,
  workflow: Workflow,
  preview: CardPreview = null,
): Promise<WorkflowCard> {
  const [profile, have] = [await readProfile(deps.store), await deps.credentials.names()];
  const credentials = credentialsNeeded(workflow).map((name) => ({ name, set: have.has(name) }));
  return {
    workflow_id: workflow.id,
    name: workflow.name,
    source: sourceInWords(workflow),
    schedule: scheduleInWords(workflow, profile.time_zone),
    instructions: workflow.instructions.trim(),
    actions: workflow.actions.map((a) =>
      a.irreversible ? `${a.name} (irreversible: always asks you)` : a.name,
    ),
    threshold: thresholdInWords(workflow.confidence_threshold ?? deps.threshold),
    credentials,
    preview,
    saves_as: credentials.every((c) => c.set) ? 'active' : 'paused',
  };
}

/** Where the items come from, in words. */
export function sourceInWords(workflow: Workflow): string {
  const s = workflow.source;
  switch (s.type) {
    case 'maildir':
      return `the Maildir folder ${s.path} on this machine`;
    case 'imap':
      return `the IMAP mailbox ${s.mailbox} of ${s.user} at ${s.host}`;
    case 'event':
      return 'items sent to its webhook';
  }
}

/** When it runs, in words with the time zone its schedule is read in. */
export function scheduleInWords(workflow: Workflow, timeZone: string): string {
  const t = workflow.trigger;
  if (t.schedule !== undefined) return describeSchedule(t.schedule.trim(), timeZone);
  if (t.webhook) return 'whenever its webhook is called';
  return 'only when you run it';
}

function thresholdInWords(threshold: number): string {
  const pct = Math.round(threshold * 100);
  return `acts alone when it is at least ${pct}% sure; below that it asks you (${threshold})`;
}

/** The card's preview from a preview result. */
export function cardPreview(
  preview: { ok: true; count: number; rows: PreviewRow[] } | { ok: false; error: string },
): CardPreview {
  return preview.ok
    ? { count: preview.count, rows: preview.rows }
    : { count: 0, rows: [], error: preview.error };
}

/** What changed between two versions of a draft, one line per part, in words. */
export function whatChanged(before: WorkflowCard, after: WorkflowCard): string[] {
  const lines: string[] = [];
  const said = (part: string, a: string, b: string) => {
    if (a !== b) lines.push(`${part}: ${a} → ${b}`);
  };
  said('name', before.name, after.name);
  said('source', before.source, after.source);
  said('schedule', before.schedule, after.schedule);
  said('actions', before.actions.join(', '), after.actions.join(', '));
  said('threshold', before.threshold, after.threshold);
  if (before.instructions !== after.instructions) {
    const old = new Set(before.instructions.split('\n').map((l) => l.trim()));
    const added = after.instructions
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !old.has(l));
    lines.push(added.length > 0 ? `instructions: added "${added.join(' ')}"` : 'instructions: rewritten');
  }
  return lines;
}

/** The card as lines of text (the CLI, and the reply of a show). */
export function cardLines(card: WorkflowCard): string[] {
  const creds =
    card.credentials.length === 0
      ? 'none'
      : card.credentials.map((c) => `${c.name} (${c.set ? 'set' : 'missing'})`).join(', ');
  const preview = card.preview;
  const previewLine =
    preview === null
      ? 'not made'
      : preview.error !== undefined
        ? `could not read the source: ${preview.error}`
        : preview.rows.length === 0
          ? 'the source has nothing to preview right now'
          : `${preview.rows.length} of ${plural(preview.count, 'item')}: ${count(preview.rows, 'act')} it would handle, ${count(preview.rows, 'ask')} it would ask you about, ${count(preview.rows, 'rule')} a rule decides`;
  const missing = card.credentials.filter((c) => !c.set).map((c) => c.name);
  return [
    `Workflow "${card.name}" (${card.workflow_id})`,
    `  Source: ${card.source}`,
    `  Schedule: ${card.schedule}`,
    `  Instructions: ${card.instructions.replace(/\s*\n\s*/g, ' ')}`,
    `  Actions: ${card.actions.join(', ')}`,
    `  Threshold: ${card.threshold}`,
    `  Credentials: ${creds}`,
    `  Preview: ${previewLine}`,
    ...(missing.length > 0
      ? [
          `  Needs ${missing.join(', ')}: set ${missing.length > 1 ? 'them' : 'it'} with \`handoff credentials set ${missing[0]}\` (or in the card's field on the web); saved before that, it is saved paused.`,
        ]
      : []),
  ];
}

function count(rows: readonly PreviewRow[], verdict: PreviewRow['verdict']): number {
  return rows.filter((r) => r.verdict === verdict).length;
}

/**
 * The completer's artifact: every completed run records its report. A workflow with
 * `digest: true` (competitor watch) gets a Markdown digest of what the run read and did,
 * item by item, with the agent's summary of each; any other workflow a plain report of what
 * was done to which item (and what was not, and why).
 */
import { auditOfRun, listAudit } from '../audit/audit.ts';
import type { AuditEntry } from '../records/audit.ts';
import { readProfile } from '../profile/profile.ts';
import type { Store } from '../store/store.ts';
import type { Workflow } from '../workflows/schema.ts';
import { artifactOf, saveArtifact, type Artifact, type Produced } from './artifacts.ts';

const BY: Record<string, string> = { model: 'the agent', memory: 'a rule', human: 'you' };

/** The day `iso` falls on in `timeZone`, as YYYY-MM-DD. */
export function dayIn(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(iso));
}

/** The Markdown digest of a run's item entries, grouped by what was done. */
export function digestMarkdown(
  workflowName: string,
  day: string,
  summary: string,
  entries: readonly AuditEntry[],
): string {
  const items = entries.filter((e) => e.item_id !== null && e.outcome !== 'run_finished');
  const lines = [`# ${workflowName}: digest of ${day}`, '', summary, ''];
  const groups = new Map<string, AuditEntry[]>();
  for (const e of items) {
    const heading =
      e.outcome === 'acted' ? (e.action ?? 'acted').replace(/_/g, ' ') : `not acted on (${e.outcome})`;
    groups.set(heading, [...(groups.get(heading) ?? []), e]);
  }
  for (const [heading, group] of groups) {
    lines.push(`## ${heading[0]!.toUpperCase()}${heading.slice(1)} (${group.length})`, '');
    for (const e of group) {
      const by = e.decided_by ? ` (decided by ${BY[e.decided_by]})` : '';
      const why = e.reasoning ? `: ${e.reasoning.replace(/\s+/g, ' ').trim()}` : '';
      lines.push(`- **${(e.subject ?? e.item_id ?? '').replace(/\s+/g, ' ').trim()}**${by}${why}`);
    }
    lines.push('');
  }
  if (items.length === 0) lines.push('Nothing new this time.', '');
  return lines.join('\n');
}

/** What became of one entry, as a heading: the action done, or the outcome when nothing was done. */
function headingOf(e: AuditEntry): string {
  if (e.outcome === 'acted') return (e.action ?? 'acted').replace(/_/g, ' ');
  if (e.outcome === 'failed') return `failed to ${(e.action ?? 'act').replace(/_/g, ' ')}`;
  return `not acted on (${e.outcome})`;
}

/** The plain-text report of a run: its summary, then each item under what was done to it, with the detail. */
export function reportText(summary: string, entries: readonly AuditEntry[]): string {
  const items = entries.filter((e) => e.item_id !== null && e.outcome !== 'run_finished');
  const lines = [summary];
  const groups = new Map<string, AuditEntry[]>();
  for (const e of items) groups.set(headingOf(e), [...(groups.get(headingOf(e)) ?? []), e]);
  for (const [heading, group] of groups) {
    lines.push('', `${heading[0]!.toUpperCase()}${heading.slice(1)} (${group.length}):`);
    for (const e of group) {
      const subject = (e.subject ?? '').replace(/\s+/g, ' ').trim();
      const by = e.decided_by ? `, decided by ${BY[e.decided_by]}` : '';
      const detail = e.detail ? `: ${e.detail.replace(/\s+/g, ' ').trim()}` : '';
      lines.push(`- ${subject ? `"${subject}" ` : ''}${e.item_id}${by}${detail}`);
    }
  }
  if (items.length === 0) lines.push('', 'No item was acted on or asked about.');
  return `${lines.join('\n')}\n`;
}

/** Records the run's report (or digest) as an artifact; called by the completer, once per completed run. */
export async function recordRunReport(
  store: Store,
  run: { id: string; workflow_id: string; started_at: string; keyed?: true | undefined },
  workflow: Pick<Workflow, 'name' | 'digest'>,
  summary: string,
): Promise<Artifact> {
  let produced: Produced;
  // The run's entries by its key (a run record at hand says which scheme; else listAudit reads it).
  const entries = run.keyed ? await auditOfRun(store, run) : await listAudit(store, { runId: run.id });
  if (workflow.digest) {
    const profile = await readProfile(store);
    const day = dayIn(run.started_at, profile.time_zone);
    produced = {
      kind: 'digest',
      title: `${workflow.name}: digest of ${day}`,
      contentType: 'text/markdown; charset=utf-8',
      body: digestMarkdown(workflow.name, day, summary, entries),
    };
  } else {
    produced = {
      kind: 'report',
      title: `${workflow.name}: run report`,
      contentType: 'text/plain; charset=utf-8',
      body: reportText(summary, entries),
    };
  }
  const from = { workflowId: run.workflow_id, runId: run.id, itemId: null, decisionId: null };
  return saveArtifact(store, artifactOf(produced, from));
}

/**
 * The completer's artifact: every completed run records its report. A workflow with
 * `digest: true` (competitor watch) gets a Markdown digest of what the run read and did,
 * item by item, with the agent's summary of each; any other workflow a one-line report.
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

/** Records the run's report (or digest) as an artifact; called by the completer, once per completed run. */
export async function recordRunReport(
  store: Store,
  run: { id: string; workflow_id: string; started_at: string; keyed?: true | undefined },
  workflow: Pick<Workflow, 'name' | 'digest'>,
  summary: string,
): Promise<Artifact> {
  let produced: Produced;
  if (workflow.digest) {
    // The run's entries by its key (a run record at hand says which scheme; else listAudit reads it).
    const entries = run.keyed ? await auditOfRun(store, run) : await listAudit(store, { runId: run.id });
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
      body: `${summary}\n`,
    };
  }
  const from = { workflowId: run.workflow_id, runId: run.id, itemId: null, decisionId: null };
  return saveArtifact(store, artifactOf(produced, from));
}

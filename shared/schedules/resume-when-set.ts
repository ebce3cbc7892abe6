/**
 * A credential was set: the workflows paused only until it was set (saved from a chat that
 * lacked it, see pauseUntilSet) start again once they have everything they need. The one
 * place every way of setting a credential goes through: `handoff credentials set`, the web's
 * Credentials page, the chat card's credential field and `PUT /api/credentials/:name`.
 * And the other way: a credential deleted pauses the workflows that need it until it is set
 * again (pauseWhenDeleted), so none fires on a schedule only to fail.
 */
import type { Credentials } from '../credentials/credentials.ts';
import { NotFoundError } from '../errors/index.ts';
import { listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { getWorkflow, listWorkflows } from '../workflows/repository.ts';
import { credentialsNeeded } from '../workflows/credentials-needed.ts';
import { getScheduleState, pauseUntilSet, ScheduleStateSchema } from './schedules.ts';

/** Told of each workflow whose schedule changed (on AWS: its EventBridge schedule follows). */
export type ScheduleChangeListener = (
  workflowId: string,
  change: 'saved',
  workspace: string,
) => Promise<void>;

/** What setting a credential did to the workflows that waited for it. */
export interface ResumedWhenSet {
  /** Resumed: nothing they need is missing now. */
  resumed: { workflow_id: string; name: string }[];
  /** Still paused: what each still needs. */
  still_paused: { workflow_id: string; name: string; needs: string[] }[];
}

/** What it reads and tells: the workspace's store and credentials, and who follows a schedule change. */
export interface ResumeDeps {
  store: Store;
  credentials: Pick<Credentials, 'names'>;
  workspace: string;
  onWorkflowChange?: ScheduleChangeListener | undefined;
}

/**
 * Resumes every workflow paused for missing credentials that now has all it needs (a pause the
 * person chose, without `needs`, is never lifted here); one that still lacks some keeps its
 * pause, now naming only those. Each resumed workflow is announced to `onWorkflowChange`.
 */
export async function resumeWhenSet(deps: ResumeDeps, now = new Date()): Promise<ResumedWhenSet> {
  const waiting = (await listRecords(deps.store, 'schedules', ScheduleStateSchema)).filter(
    (s) => s.paused && (s.needs?.length ?? 0) > 0,
  );
  const result: ResumedWhenSet = { resumed: [], still_paused: [] };
  if (waiting.length === 0) return result;
  const have = await deps.credentials.names();
  for (const state of waiting.sort((a, b) => a.workflow_id.localeCompare(b.workflow_id))) {
    const workflow = await getWorkflow(deps.store, state.workflow_id).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null; // deleted since: nothing to resume
      throw error;
    });
    if (!workflow) continue;
    const missing = credentialsNeeded(workflow).filter((name) => !have.has(name));
    const write = (paused: boolean, needs?: string[]) =>
      deps.store.put(
        'schedules',
        ScheduleStateSchema.parse({
          id: state.id,
          schemaVersion: 1,
          workflow_id: state.workflow_id,
          paused,
          ...(needs ? { needs } : {}),
          updated_at: now.toISOString(),
        }),
      );
    if (missing.length > 0) {
      if (missing.join() !== state.needs!.join()) await write(true, missing);
      result.still_paused.push({ workflow_id: workflow.id, name: workflow.name, needs: missing });
      continue;
    }
    await write(false);
    await deps.onWorkflowChange?.(workflow.id, 'saved', deps.workspace);
    result.resumed.push({ workflow_id: workflow.id, name: workflow.name });
  }
  return result;
}

/**
 * Pauses each workflow that needs `name` (just deleted) until it is set again: its schedule
 * says so and resumeWhenSet lifts it. A workflow the person paused is left as they paused it;
 * one already waiting for other credentials waits for this one too. Each newly paused
 * workflow is announced to `onWorkflowChange` (on AWS its schedule is disabled).
 */
export async function pauseWhenDeleted(
  deps: Omit<ResumeDeps, 'credentials'>,
  name: string,
  now = new Date(),
): Promise<{ workflow_id: string; name: string }[]> {
  const paused: { workflow_id: string; name: string }[] = [];
  for (const workflow of await listWorkflows(deps.store)) {
    if (!credentialsNeeded(workflow).includes(name)) continue;
    const state = await getScheduleState(deps.store, workflow.id);
    const waitsFor = state?.paused ? (state.needs ?? []) : [];
    if (state?.paused && waitsFor.length === 0) continue; // the person's own pause stays theirs
    if (waitsFor.includes(name)) continue;
    await pauseUntilSet(deps.store, workflow.id, [...waitsFor, name], now);
    await deps.onWorkflowChange?.(workflow.id, 'saved', deps.workspace);
    paused.push({ workflow_id: workflow.id, name: workflow.name });
  }
  return paused;
}

/** The sentence after "Deleted NAME.": which workflows now wait for it (empty when none). */
export function describePaused(paused: { workflow_id: string; name: string }[]): string {
  if (paused.length === 0) return '';
  const ids = paused.map((w) => `${w.workflow_id} ("${w.name}")`).join(', ');
  return `Paused ${ids} until it is set again.`;
}

/** The sentence after "Set NAME.": what resumed and what still waits (empty when nothing waited). */
export function describeResumed(result: ResumedWhenSet): string {
  const parts: string[] = [];
  if (result.resumed.length > 0)
    parts.push(
      `Resumed ${result.resumed.map((w) => `${w.workflow_id} ("${w.name}")`).join(', ')}: ${result.resumed.length > 1 ? 'they have' : 'it has'} every credential ${result.resumed.length > 1 ? 'they need' : 'it needs'} now.`,
    );
  for (const w of result.still_paused)
    parts.push(`${w.workflow_id} stays paused: it still needs ${w.needs.join(', ')}.`);
  return parts.join(' ');
}

/**
 * A credential was set: the workflows paused only until it was set (saved from a chat that
 * lacked it, see pauseUntilSet) start again once they have everything they need. The one
 * place every way of setting a credential goes through: `handoff credentials set`, the web's
 * Credentials page, the chat card's credential field and `PUT /api/credentials/:name`.
 */
import type { Credentials } from '../credentials/credentials.ts';
import { NotFoundError } from '../errors/index.ts';
import { listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { getWorkflow } from '../workflows/repository.ts';
import { credentialsNeeded } from '../workflows/credentials-needed.ts';
import { ScheduleStateSchema } from './schedules.ts';

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

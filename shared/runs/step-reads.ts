/**
 * What one step of a run reads, read once: a Lambda step (or the trigger) works on a store
 * that keeps every record it read or wrote for this invocation (store/read-cache.ts), and
 * the records each step reads by id are fetched up front in batches (DynamoDB: one
 * BatchGetItem for the run, the settings, the profile and the marker that says the rules are
 * read by key, one for what the run names: its workflow, interrupt and usage).
 * Every write stays conditional; a new cache is made per invocation, never kept.
 */
import { usageDayRef } from '../recorder/usage-days.ts';
import { PROFILE_ID } from '../profile/profile.ts';
import { SETTINGS_ID } from '../settings/settings.ts';
import { prefetch, readCache } from '../store/read-cache.ts';
import type { RecordRef } from '../store/store.ts';
import type { EngineDeps } from './deps.ts';
import { usageId } from '../recorder/store-sink.ts';
import { RULE_KEYS_MIGRATED_ID } from '../memory/rule-keys.ts';

const SHARED_REFS: readonly RecordRef[] = [
  { collection: 'settings', id: SETTINGS_ID },
  { collection: 'profile', id: PROFILE_ID },
];

/** The engine for one step of run `runId`: reads cached for this invocation, the step's records prefetched. */
export async function stepEngine(deps: EngineDeps, runId: string): Promise<EngineDeps> {
  const store = readCache(deps.store);
  await prefetch(store, [
    { collection: 'runs', id: runId },
    ...SHARED_REFS,
    { collection: 'settings', id: RULE_KEYS_MIGRATED_ID },
  ]);
  const run = await store.get('runs', runId);
  if (run && typeof run.workflow_id === 'string') {
    const interrupt = typeof run.interrupt_id === 'string' ? run.interrupt_id : null;
    await prefetch(store, [
      { collection: 'workflows', id: run.workflow_id },
      ...(interrupt ? [{ collection: 'interrupts' as const, id: interrupt }] : []),
      ...(await usageRefs(
        deps,
        runId,
        run.workflow_id,
        typeof run.started_at === 'string' ? run.started_at : '',
      )),
    ]);
  }
  return { ...deps, store };
}

/**
 * The run's usage record for its primary model (the executor adds its turns to it) and its
 * day's roll-up (the day the run started: where its first call most likely was); none if no
 * model can be made.
 */
async function usageRefs(
  deps: EngineDeps,
  runId: string,
  workflowId: string,
  startedAt: string,
): Promise<RecordRef[]> {
  try {
    const modelId = (await deps.models('primary')).getConfig().modelId ?? 'unknown';
    const day = startedAt.slice(0, 10) || new Date().toISOString().slice(0, 10);
    return [{ collection: 'usage', id: usageId(runId, modelId) }, usageDayRef(day, workflowId)];
  } catch {
    return []; // the step reports it when it makes the model
  }
}

/**
 * The engine for starting a run of `workflowId`: reads cached for this invocation, the
 * workflow, settings and the workflow's schedule state (paused or not) prefetched.
 */
export async function triggerEngine(deps: EngineDeps, workflowId: string): Promise<EngineDeps> {
  const store = readCache(deps.store);
  await prefetch(store, [
    { collection: 'workflows', id: workflowId },
    ...SHARED_REFS,
    { collection: 'schedules', id: workflowId },
  ]);
  return { ...deps, store };
}

import { NotFoundError } from '../errors/index.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { WorkflowSchema, type Workflow } from './schema.ts';

/** Saves (or replaces) a validated workflow. */
export async function saveWorkflow(store: Store, workflow: Workflow): Promise<void> {
  await store.put('workflows', { ...workflow });
}

export async function getWorkflow(store: Store, id: string): Promise<Workflow> {
  const workflow = await getRecord(store, 'workflows', WorkflowSchema, id);
  if (!workflow)
    throw new NotFoundError(
      `no workflow "${id}": see \`handoff workflows\`, or add one with \`handoff workflows add FILE\``,
    );
  return workflow;
}

export async function listWorkflows(store: Store): Promise<Workflow[]> {
  return (await listRecords(store, 'workflows', WorkflowSchema)).sort((a, b) => a.id.localeCompare(b.id));
}

export async function deleteWorkflow(store: Store, id: string): Promise<void> {
  await getWorkflow(store, id);
  await store.delete('workflows', id);
}

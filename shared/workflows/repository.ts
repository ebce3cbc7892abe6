import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { listEntries } from '../integrations/registry.ts';
import { serverOf } from '../integrations/tool.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { WorkflowSchema, type Workflow } from './schema.ts';

/**
 * Saves (or replaces) a validated workflow. Refuses, with one line naming the field, an
 * `<entry>__<tool>` action whose entry is not in the integration registry.
 */
export async function saveWorkflow(store: Store, workflow: Workflow): Promise<void> {
  await checkIntegrationActions(store, workflow);
  await store.put('workflows', { ...workflow });
}

async function checkIntegrationActions(store: Store, workflow: Workflow): Promise<void> {
  const wanted = workflow.actions.map((a, i) => ({ i, name: a.name, server: serverOf(a.name) }));
  if (wanted.every((a) => a.server === null)) return;
  const known = new Set((await listEntries(store)).map((r) => r.entry.name));
  const unknown = wanted.find((a) => a.server !== null && !known.has(a.server));
  if (unknown)
    throw new InvalidInputError(
      `actions.${unknown.i}.name: "${unknown.name}" names no integration "${unknown.server}" ` +
        '(see `handoff integrations`)',
    );
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

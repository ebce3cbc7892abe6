import { refuseAdministratorSettings, workflowProblems } from '../access/admin-settings.ts';
import { agents } from '../agents/definitions.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { skills } from '../skills/skills.ts';
import { listEntries } from '../integrations/registry.ts';
import { serverOf } from '../integrations/tool.ts';
import { getRecord, listRecords } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { WorkflowSchema, type Workflow } from './schema.ts';

/**
 * Saves (or replaces) a validated workflow. Refuses, with one line naming the field, an
 * `<entry>__<tool>` action or an `integrations` name not in the integration registry, and, from a
 * workspace-scoped key, an administrator's setting (access/admin-settings.ts).
 */
export async function saveWorkflow(store: Store, workflow: Workflow): Promise<void> {
  await refuseAdministratorSettings((member) => workflowProblems(workflow, member));
  // Every problem at once, so one edit can fix them all.
  const problems = [
    ...(await integrationProblems(store, workflow)),
    ...(await libraryProblems(store, workflow)),
  ];
  if (problems.length > 0) throw new InvalidInputError(problems.join('; '));
  await store.put('workflows', { ...workflow });
}

/**
 * The skills and agents a workflow names that the store does not have, one line each
 * (`skills.0: no skill "tone-of-voice" ...`); empty when all are there. `have` adds names
 * about to be saved with it (a workspace file).
 */
export async function libraryProblems(
  store: Store,
  workflow: Workflow,
  have: { skills?: readonly string[]; agents?: readonly string[] } = {},
): Promise<string[]> {
  const wantsSkills =
    (workflow.skills ?? []).length > 0 || (workflow.specialists ?? []).some((s) => s.skills?.length);
  const knownSkills = new Set([
    ...(wantsSkills ? (await skills.listLatest(store)).map((s) => s.name) : []),
    ...(have.skills ?? []),
  ]);
  const stored = (workflow.agents ?? []).length > 0 ? await agents.listLatest(store) : [];
  const knownAgents = new Set([...stored.map((a) => a.name), ...(have.agents ?? [])]);
  const declared = new Set(workflow.actions.map((a) => a.name));
  const problems: string[] = [];
  const skill = (path: string, name: string) => {
    if (!knownSkills.has(name))
      problems.push(`${path}: no skill "${name}" (add it: handoff skills add ${name} --file FILE)`);
  };
  (workflow.skills ?? []).forEach((name, i) => skill(`skills.${i}`, name));
  (workflow.specialists ?? []).forEach((sp, i) =>
    (sp.skills ?? []).forEach((name, j) => skill(`specialists.${i}.skills.${j}`, name)),
  );
  (workflow.agents ?? []).forEach((name, i) => {
    if (!knownAgents.has(name))
      problems.push(`agents.${i}: no agent "${name}" (add it: handoff agents add ${name} --file FILE)`);
    const undeclared = stored
      .find((a) => a.name === name)
      ?.content.actions?.find((a) => a !== 'skip' && !declared.has(a));
    if (undeclared)
      problems.push(`agents.${i}: agent "${name}" may "${undeclared}", which this workflow does not declare`);
  });
  return problems;
}

/**
 * Each `<entry>__<tool>` action, and each `integrations` name, whose entry is not in the
 * integration registry, one line each.
 */
async function integrationProblems(store: Store, workflow: Workflow): Promise<string[]> {
  const wanted = workflow.actions.map((a, i) => ({ i, name: a.name, server: serverOf(a.name) }));
  const reading = workflow.integrations ?? [];
  if (wanted.every((a) => a.server === null) && reading.length === 0) return [];
  const known = new Set((await listEntries(store)).map((r) => r.entry.name));
  const see = '(see `handoff integrations`)';
  return [
    ...wanted
      .filter((a) => a.server !== null && !known.has(a.server))
      .map((a) => `actions.${a.i}.name: "${a.name}" names no integration "${a.server}" ${see}`),
    ...reading.flatMap((name, i) =>
      known.has(name) ? [] : [`integrations.${i}: no integration "${name}" ${see}`],
    ),
  ];
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

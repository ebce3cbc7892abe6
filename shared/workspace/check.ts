/**
 * Checking a `workspace.yml` before anything is written: every problem is found and
 * reported, one line each, naming the file, the path and the field.
 */
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { InvalidInputError, errorMessage } from '../errors/index.ts';
import { listEntries } from '../integrations/registry.ts';
import { requiredCredentials } from '../integrations/servers.ts';
import { serverOf } from '../integrations/tool.ts';
import { skills } from '../skills/skills.ts';
import type { Store } from '../store/store.ts';
import { libraryProblems } from '../workflows/repository.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import { workflowCredentials, WorkspaceFileSchema, type WorkspaceFile } from './file.ts';
import { MAX_WORKSPACE_BYTES } from './limits.ts';

/** The file's problems: each a line naming the file, the path and the field. */
export class WorkspaceFileError extends InvalidInputError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Parses and checks a workspace file; WorkspaceFileError lists every problem found. */
export async function checkWorkspaceFile(
  store: Store,
  text: string,
  fileName: string,
  /** What else refuses a workflow here (a Lambda: a source that needs local folders). */
  workflowProblem: (workflow: Workflow) => string | null = () => null,
): Promise<{ file: WorkspaceFile; workflows: Workflow[] }> {
  const fail = (problems: string[]): never => {
    throw new WorkspaceFileError(problems.map((p) => `${fileName}: ${p}`));
  };
  if (Buffer.byteLength(text, 'utf8') > MAX_WORKSPACE_BYTES)
    fail([`larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB`]);
  const doc = parseDocument(text, { prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = text.slice(0, yamlError.pos[0]).split('\n').length;
    fail([
      `not valid YAML: ${(yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')} (line ${line})`,
    ]);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return fail([`not valid YAML: ${errorMessage(error).split('\n')[0]}`]);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    fail(['must be a mapping (version, profile, settings, integrations, skills, agents, workflows, rules)']);
  const parsed = WorkspaceFileSchema.safeParse(data);
  const problems: string[] = parsed.success ? [] : parsed.error.issues.map((i) => issueLine(i, []));
  const raw = data as Record<string, unknown>;
  const rawWorkflows = Array.isArray(raw.workflows) ? raw.workflows : [];
  const workflows: Workflow[] = [];
  rawWorkflows.forEach((w, i) => {
    const result = WorkflowSchema.safeParse(w);
    if (result.success) workflows.push(result.data);
    else problems.push(...result.error.issues.map((issue) => issueLine(issue, ['workflows', i])));
  });
  problems.push(...duplicates(raw));
  if (!parsed.success) fail(problems);
  const file = parsed.data!;
  problems.push(...(await references(store, file, workflows)));
  workflows.forEach((w, i) => {
    const problem = workflowProblem(w);
    if (problem) problems.push(`workflows.${i}.source.type: ${problem}`);
  });
  if (problems.length > 0) fail(problems);
  return { file, workflows };
}

function issueLine(issue: z.core.$ZodIssue, prefix: (string | number)[]): string {
  const path = [...prefix, ...issue.path].map(String).join('.');
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((k) => `${path ? `${path}.` : ''}${k}: unknown field`).join('; ');
  return `${path || '(top)'}: ${issue.message}`;
}

/** Two entries of a section with the same name or id, read from the raw file (so they are found even when other fields are wrong). */
function duplicates(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const sections = [
    ['integrations', 'name'],
    ['skills', 'name'],
    ['agents', 'name'],
    ['workflows', 'id'],
    ['rules', 'id'],
  ] as const;
  for (const [section, field] of sections) {
    const list = raw[section];
    if (!Array.isArray(list)) continue;
    const first = new Map<string, number>();
    list.forEach((entry: unknown, i) => {
      const id =
        entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)[field] : undefined;
      if (typeof id !== 'string') return;
      const seen = first.get(id);
      if (seen !== undefined)
        problems.push(`${section}.${i}.${field}: duplicate ${field} "${id}" (also ${section}.${seen})`);
      else first.set(id, i);
    });
  }
  return problems;
}

/** What the file names must exist: in the file itself or already in the workspace. */
async function references(
  store: Store,
  file: WorkspaceFile,
  workflows: readonly Workflow[],
): Promise<string[]> {
  const problems: string[] = [];
  const fileSkills = file.skills.map((s) => s.name);
  const knownSkills = new Set([...fileSkills, ...(await skills.listLatest(store)).map((s) => s.name)]);
  file.agents.forEach((a, i) =>
    a.skills.forEach((s, j) => {
      if (!knownSkills.has(s))
        problems.push(`agents.${i}.skills.${j}: no skill "${s}" (add it under skills:)`);
    }),
  );
  const fileEntries = new Map(file.integrations.map((x, i) => [x.name, { x, i }]));
  const registry = await listEntries(store);
  const entryNames = new Set([...fileEntries.keys(), ...registry.map((r) => r.entry.name)]);
  file.integrations.forEach((x, i) => {
    if (x.entry && x.entry.name !== x.name)
      problems.push(`integrations.${i}.entry.name: "${x.entry.name}" must equal name "${x.name}"`);
    if (!x.entry && !registry.some((r) => r.entry.name === x.name && r.source === 'builtin'))
      problems.push(`integrations.${i}.entry: needed ("${x.name}" is not a built-in entry)`);
  });
  const have = new Set((await store.list('credentials')).map((c) => c.id));
  const needCredential = (path: string, name: string) => {
    if (!have.has(name))
      problems.push(
        `${path}: credential ${name} is not set in this workspace (run handoff credentials set ${name}, then apply again)`,
      );
  };
  file.integrations.forEach((x, i) => {
    if (x.entry && !x.disabled)
      for (const c of requiredCredentials(x.entry)) needCredential(`integrations.${i}.entry.transport`, c);
  });
  const workflowIds = new Set([
    ...workflows.map((w) => w.id),
    ...(await store.list('workflows')).map((w) => w.id),
  ]);
  for (const [i, w] of workflows.entries()) {
    const lines = await libraryProblems(store, w, {
      skills: fileSkills,
      agents: file.agents.map((a) => a.name),
    });
    problems.push(...lines.map((l) => `workflows.${i}.${l}`));
    w.actions.forEach((a, j) => {
      const server = serverOf(a.name);
      if (server && !entryNames.has(server))
        problems.push(`workflows.${i}.actions.${j}.name: "${a.name}" names no integration "${server}"`);
    });
    (w.integrations ?? []).forEach((name, j) => {
      if (!entryNames.has(name)) problems.push(`workflows.${i}.integrations.${j}: no integration "${name}"`);
    });
    for (const c of workflowCredentials(w)) needCredential(`workflows.${i}.source`, c);
  }
  file.rules.forEach((r, i) => {
    if (r.workflow_id !== null && !workflowIds.has(r.workflow_id))
      problems.push(`rules.${i}.workflow_id: no workflow "${r.workflow_id}" in the file or the workspace`);
  });
  return problems;
}

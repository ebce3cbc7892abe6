/**
 * Applying a `workspace.yml`: everything is checked first and every problem reported, one
 * line each (`<file>: <path>: <what>`); nothing is written unless there is none. Then only
 * what differs is written, in one batch (`commitAll`), so the same file twice changes
 * nothing. Apply adds and updates; it never deletes (remove things with their commands).
 */
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { agents } from '../agents/definitions.ts';
import { InvalidInputError, errorMessage } from '../errors/index.ts';
import { listEntries } from '../integrations/registry.ts';
import { requiredCredentials } from '../integrations/servers.ts';
import { serverOf } from '../integrations/tool.ts';
import { PROFILE_ID, ProfileSchema } from '../profile/profile.ts';
import { SETTINGS_ID, StoredSettingsSchema } from '../settings/settings.ts';
import { skills } from '../skills/skills.ts';
import { commitAll, type Store, type Write } from '../store/store.ts';
import { libraryProblems } from '../workflows/repository.ts';
import { WorkflowSchema, type Workflow } from '../workflows/schema.ts';
import {
  exportWorkspace,
  FileRuleSchema,
  workflowCredentials,
  WorkspaceFileSchema,
  type WorkspaceFile,
} from './file.ts';
import { listRules } from '../memory/rules-repository.ts';

import { MAX_WORKSPACE_BYTES } from './limits.ts';

export { MAX_WORKSPACE_BYTES };

/** One difference between the file and the workspace. */
export interface Change {
  kind: 'profile' | 'settings' | 'integration' | 'skill' | 'agent' | 'workflow' | 'rule';
  name: string;
  change: 'add' | 'update';
  /** For an update: the top-level fields that differ. */
  fields?: string[];
}

/** The file's problems: each a line naming the file, the path and the field. */
export class WorkspaceFileError extends InvalidInputError {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** What apply found (and, unless a dry run, wrote). */
export interface ApplyResult {
  changes: Change[];
  applied: boolean;
  /** Workflows added or changed (their schedules follow them). */
  workflows: string[];
  /** The profile's time zone changed: every schedule is read anew. */
  timeZoneChanged: boolean;
}

/** Parses and checks a workspace file; WorkspaceFileError lists every problem found. */
export async function checkWorkspaceFile(
  store: Store,
  text: string,
  fileName: string,
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
    for (const c of workflowCredentials(w)) needCredential(`workflows.${i}.source`, c);
  }
  file.rules.forEach((r, i) => {
    if (r.workflow_id !== null && !workflowIds.has(r.workflow_id))
      problems.push(`rules.${i}.workflow_id: no workflow "${r.workflow_id}" in the file or the workspace`);
  });
  return problems;
}

/**
 * Checks the file, works out what differs from the workspace and, unless `dryRun`, writes
 * it in one batch. WorkspaceFileError (nothing written) when the file has any problem.
 */
export async function applyWorkspace(
  store: Store,
  text: string,
  fileName: string,
  opts: { dryRun?: boolean } = {},
): Promise<ApplyResult> {
  const { file, workflows } = await checkWorkspaceFile(store, text, fileName);
  const current = await exportWorkspace(store, { withLearnedRules: true });
  const changes: Change[] = [];
  const writes: Write[] = [];
  const now = new Date().toISOString();
  const note = (kind: Change['kind'], name: string, before: unknown, after: unknown): boolean => {
    const [b, a] = [json(before), json(after)];
    if (before !== undefined && isDeepStrictEqual(b, a)) return false;
    if (before === undefined) changes.push({ kind, name, change: 'add' });
    else changes.push({ kind, name, change: 'update', fields: changedFields(b, a) });
    return true;
  };

  const profile = { ...current.profile, ...file.profile };
  if (note('profile', 'profile', current.profile, profile))
    writes.push({
      kind: 'put',
      collection: 'profile',
      record: ProfileSchema.parse({ id: PROFILE_ID, ...profile, updated_at: now }),
    });
  const settings = { ...current.settings, ...file.settings };
  if (note('settings', 'settings', current.settings, settings))
    writes.push({
      kind: 'put',
      collection: 'settings',
      record: StoredSettingsSchema.parse({ id: SETTINGS_ID, ...settings, updated_at: now }),
    });
  for (const x of file.integrations) {
    const before = current.integrations.find((c) => c.name === x.name);
    if (note('integration', x.name, before, x))
      writes.push({
        kind: 'put',
        collection: 'tool_servers',
        record: {
          id: x.name,
          schemaVersion: 1,
          ...(x.entry ? { entry: { ...x.entry, templates: {} } } : {}),
          disabled: x.disabled,
          templates: x.templates,
          updated_at: now,
        },
      });
  }
  for (const { name, ...content } of file.skills) {
    const latest = (await skills.versions(store, name)).at(-1);
    if (note('skill', name, latest?.content, content))
      writes.push({
        kind: 'create',
        collection: 'skills',
        record: skills.record(name, (latest?.version ?? 0) + 1, content),
      });
  }
  for (const { name, ...content } of file.agents) {
    const latest = (await agents.versions(store, name)).at(-1);
    if (note('agent', name, latest?.content, content))
      writes.push({
        kind: 'create',
        collection: 'agents',
        record: agents.record(name, (latest?.version ?? 0) + 1, content),
      });
  }
  const changedWorkflows: string[] = [];
  for (const w of workflows) {
    if (
      note(
        'workflow',
        w.id,
        current.workflows.find((c) => c.id === w.id),
        w,
      )
    ) {
      writes.push({ kind: 'put', collection: 'workflows', record: { ...w } });
      changedWorkflows.push(w.id);
    }
  }
  // Rules are versioned records (learning supersedes them with a conditional update).
  const storedRules = new Map((await listRules(store)).map((r) => [r.id, r]));
  for (const r of file.rules) {
    const stored = storedRules.get(r.id);
    const before = stored ? FileRuleSchema.parse(pick(stored, Object.keys(r))) : undefined;
    if (!note('rule', r.id, before, r)) continue;
    if (!stored)
      writes.push({
        kind: 'create',
        collection: 'rules',
        record: { ...r, superseded_by: null, mirror_ids: [] },
      });
    else
      writes.push({
        kind: 'update',
        collection: 'rules',
        record: { ...stored, ...r, superseded_by: null },
        expectedVersion: stored.version ?? 1,
      });
  }
  const timeZoneChanged = profile.time_zone !== current.profile.time_zone;
  if (!opts.dryRun && writes.length > 0) {
    const failed = (await commitAll(store, writes)).find((r) => !r.ok);
    if (failed && !failed.ok)
      throw new InvalidInputError(
        `${fileName}: the workspace changed while applying (${failed.error.message}); apply again`,
      );
  }
  return { changes, applied: !opts.dryRun, workflows: changedWorkflows, timeZoneChanged };
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, record[k]]));
}

/** Drops undefined fields, so two equal values compare equal however they were built. */
function json(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function changedFields(before: unknown, after: unknown): string[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !isDeepStrictEqual(b[k], a[k]));
}

/** The changes as a person reads them: `+ workflow inbox`, `~ skill tone-of-voice`. */
export function describeChanges(changes: readonly Change[]): string[] {
  if (changes.length === 0) return ['No changes: the workspace already matches the file.'];
  return changes.map(
    (c) =>
      `${c.change === 'add' ? '+' : '~'} ${c.kind} ${c.name}${c.fields?.length ? ` (${c.fields.join(', ')})` : ''}`,
  );
}

/**
 * Applying a `workspace.yml`: everything is checked first and every problem reported, one
 * line each (`<file>: <path>: <what>`); nothing is written unless there is none. Then only
 * what differs is written, in one batch (`commitAll`), so the same file twice changes
 * nothing. Apply adds and updates; it never deletes (remove things with their commands).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  entryProblems,
  refuseAdministratorSettings,
  settingsProblems,
  workflowProblems,
} from '../access/admin-settings.ts';
import { agents } from '../agents/definitions.ts';
import { InvalidInputError } from '../errors/index.ts';
import { PROFILE_ID, ProfileSchema } from '../profile/profile.ts';
import { SETTINGS_ID, StoredSettingsSchema } from '../settings/settings.ts';
import { skills } from '../skills/skills.ts';
import { commitAll, type Store, type Write } from '../store/store.ts';
import { exportWorkspace, FileRuleSchema } from './file.ts';
import { listRules } from '../memory/rules-repository.ts';
import { invalidateRuleSet } from '../memory/rule-sets.ts';
import { indexRules } from '../memory/rule-keys.ts';
import { RuleSchema } from '../records/rule.ts';
import { checkWorkspaceFile } from './check.ts';
import type { Workflow } from '../workflows/schema.ts';

export { MAX_WORKSPACE_BYTES } from './limits.ts';
export { checkWorkspaceFile, WorkspaceFileError } from './check.ts';

/** One difference between the file and the workspace. */
export interface Change {
  kind: 'profile' | 'settings' | 'integration' | 'skill' | 'agent' | 'workflow' | 'rule';
  name: string;
  change: 'add' | 'update';
  /** For an update: the top-level fields that differ. */
  fields?: string[];
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

/**
 * Checks the file, works out what differs from the workspace and, unless `dryRun`, writes
 * it in one batch. WorkspaceFileError (nothing written) when the file has any problem.
 */
export async function applyWorkspace(
  store: Store,
  text: string,
  fileName: string,
  opts: { dryRun?: boolean; workflowProblem?: (workflow: Workflow) => string | null } = {},
): Promise<ApplyResult> {
  const { file, workflows } = await checkWorkspaceFile(store, text, fileName, opts.workflowProblem);
  // From a workspace-scoped key: no program, host folder or private address (nothing written).
  await refuseAdministratorSettings(async (member) => [
    ...(await settingsProblems(file.settings, `${fileName}: settings.`)),
    ...(
      await Promise.all(
        file.integrations.map((x, i) =>
          x.entry ? entryProblems(x.entry, `${fileName}: integrations.${i}.entry.`) : [],
        ),
      )
    ).flat(),
    ...(
      await Promise.all(workflows.map((w, i) => workflowProblems(w, member, `${fileName}: workflows.${i}.`)))
    ).flat(),
  ]);
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
  const storedRules = new Map((await listRules(store, { withDeleted: true })).map((r) => [r.id, r]));
  for (const r of file.rules) {
    const stored = storedRules.get(r.id);
    // A rule deleted in Memory is added again by the file that names it.
    const before =
      stored && stored.deleted_at === null ? FileRuleSchema.parse(pick(stored, Object.keys(r))) : undefined;
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
        record: { ...stored, ...r, superseded_by: null, deleted_at: null },
        expectedVersion: stored.version ?? 1,
      });
  }
  const timeZoneChanged = profile.time_zone !== current.profile.time_zone;
  if (!opts.dryRun && writes.length > 0) {
    const results = await commitAll(store, writes);
    const failed = results.find((r) => !r.ok);
    // Each rule written goes into its key (taken out of the one it had, when its match moved).
    const ruleResults = results.flatMap((r, i) =>
      r.ok && writes[i]!.collection === 'rules' ? [RuleSchema.parse(r.record)] : [],
    );
    const movedFrom = ruleResults.flatMap((r) => {
      const before = storedRules.get(r.id);
      return before ? [before] : [];
    });
    await indexRules(store, ruleResults, movedFrom);
    // The copies of the live rules of every scope a rule was written in (or moved from) are read anew.
    const scopes = new Set(
      writes
        .filter((w) => w.collection === 'rules')
        .flatMap((w) => [w.record.workflow_id, storedRules.get(w.record.id)?.workflow_id]),
    );
    for (const scope of scopes)
      if (scope !== undefined) await invalidateRuleSet(store, typeof scope === 'string' ? scope : null);
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

/**
 * `workspace.yml`: a workspace in one file you can read and version — its profile,
 * settings, the credentials it needs (names only, never values), integration entries,
 * skills, agents, workflows and the rules you set (learned ones on request).
 */
import { stringify } from 'yaml';
import { z } from 'zod';
import { AgentContentSchema, agents } from '../agents/definitions.ts';
import { listEntries } from '../integrations/registry.ts';
import { requiredCredentials, ServerEntrySchema } from '../integrations/servers.ts';
import { listRules } from '../memory/rules-repository.ts';
import { ProfileInputSchema, readProfile } from '../profile/profile.ts';
import { isLive, RuleMatchSchema } from '../records/rule.ts';
import { readStoredSettings, SettingsInputSchema } from '../settings/settings.ts';
import { SkillContentSchema, skills } from '../skills/skills.ts';
import type { Store } from '../store/store.ts';
import { listWorkflows } from '../workflows/repository.ts';
import type { Workflow } from '../workflows/schema.ts';

export const WORKSPACE_FILE_VERSION = 1;

const Name = z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });

/** An integration entry as stored: a user entry, or only settings over a built-in one. */
export const FileIntegrationSchema = z.strictObject({
  name: Name,
  entry: ServerEntrySchema.optional(),
  disabled: z.boolean({ error: 'must be true or false' }).default(false),
  templates: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
});

export const FileRuleSchema = z.strictObject({
  id: Name,
  workflow_id: z.string().nullable().default(null),
  match: RuleMatchSchema,
  action: Name,
  source: z.enum(['you', 'learned'], { error: 'must be "you" or "learned"' }).default('you'),
  note: z.string().nullable().default(null),
  confidence: z.number().min(0).max(1).default(1),
  pattern: z.string().nullable().default(null),
  decision_id: z.string().nullable().default(null),
  item_id: z.string().nullable().default(null),
  created_at: z.string(),
});
export type FileRule = z.infer<typeof FileRuleSchema>;

/** The file; each workflow is checked on its own (see apply.ts), so its problems name it. */
export const WorkspaceFileSchema = z.strictObject({
  version: z.literal(WORKSPACE_FILE_VERSION, { error: `must be ${WORKSPACE_FILE_VERSION}` }),
  profile: ProfileInputSchema.default({}),
  settings: SettingsInputSchema.partial().default({}),
  /** The credentials the workspace needs (set them with `handoff credentials set NAME`). */
  credentials: z.array(z.string(), { error: 'must be a list of names' }).default([]),
  integrations: z.array(FileIntegrationSchema, { error: 'must be a list' }).default([]),
  skills: z
    .array(z.strictObject({ name: Name, ...SkillContentSchema.shape }), { error: 'must be a list' })
    .default([]),
  agents: z
    .array(z.strictObject({ name: Name, ...AgentContentSchema.shape }), { error: 'must be a list' })
    .default([]),
  workflows: z.array(z.record(z.string(), z.unknown()), { error: 'must be a list of workflows' }).default([]),
  rules: z.array(FileRuleSchema, { error: 'must be a list' }).default([]),
});
export type WorkspaceFile = z.infer<typeof WorkspaceFileSchema>;

/** The credential names a workflow's source needs. */
export function workflowCredentials(workflow: Workflow): string[] {
  const s = workflow.source;
  if (s.type === 'imap') return [s.credential];
  if (s.type === 'event' && s.secret) return [s.secret];
  return [];
}

/** The workspace as a file's data (everything in a stable order, so the same state reads the same). */
export async function exportWorkspace(
  store: Store,
  opts: { withLearnedRules?: boolean } = {},
): Promise<WorkspaceFile> {
  const profile = await readProfile(store);
  const settings = await readStoredSettings(store);
  const stored = (await store.list('tool_servers')).map((r) => r.id);
  const integrations = (await listEntries(store))
    .filter((e) => stored.includes(e.entry.name))
    .map((e) => storedIntegration(e.entry.name, e))
    .sort((a, b) => a.name.localeCompare(b.name));
  const workflows = await listWorkflows(store);
  const rules = (await listRules(store))
    .filter((r) => isLive(r) && (r.source === 'you' || opts.withLearnedRules))
    .map((r) =>
      FileRuleSchema.parse({
        id: r.id,
        workflow_id: r.workflow_id,
        match: r.match,
        action: r.action,
        source: r.source,
        note: r.note,
        confidence: r.confidence,
        pattern: r.pattern,
        decision_id: r.decision_id,
        item_id: r.item_id,
        created_at: r.created_at,
      }),
    )
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const credentials = new Set<string>();
  for (const i of integrations)
    if (i.entry && !i.disabled) requiredCredentials(i.entry).forEach((c) => credentials.add(c));
  for (const w of workflows) workflowCredentials(w).forEach((c) => credentials.add(c));
  return {
    version: WORKSPACE_FILE_VERSION,
    profile: {
      name: profile.name,
      time_zone: profile.time_zone,
      notify_channel: profile.notify_channel,
      quiet_hours: profile.quiet_hours,
    },
    settings: {
      confidence_threshold: settings?.confidence_threshold ?? null,
      notify_channel: settings?.notify_channel ?? null,
      ui_base_url: settings?.ui_base_url ?? null,
    },
    credentials: [...credentials].sort(),
    integrations,
    skills: (await skills.listLatest(store)).map((s) => ({ name: s.name, ...s.content })),
    agents: (await agents.listLatest(store)).map((a) => ({ name: a.name, ...a.content })),
    workflows: workflows.map((w) => ({ ...w })),
    rules,
  };
}

/** The stored integration record of `name` as the file holds it (built-in entries are not repeated). */
function storedIntegration(
  name: string,
  reg: Awaited<ReturnType<typeof listEntries>>[number],
): z.infer<typeof FileIntegrationSchema> {
  return FileIntegrationSchema.parse({
    name,
    ...(reg.source === 'user' ? { entry: { ...reg.entry, templates: {} } } : {}),
    disabled: reg.disabled,
    templates: reg.entry.templates,
  });
}

/** The file's text: a comment saying what it is, then YAML. */
export function toYaml(file: WorkspaceFile): string {
  return (
    '# A Handoff workspace: apply it with `handoff workspace apply FILE` (--dry-run shows the changes).\n' +
    '# It holds no secrets: set each credential it lists with `handoff credentials set NAME`.\n' +
    stringify(file, { lineWidth: 0 })
  );
}

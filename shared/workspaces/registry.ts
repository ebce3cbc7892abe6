/**
 * The list of workspaces, kept in the platform store (collection `workspaces`). A record's
 * `id` keys the workspace's data and never changes; its `name` is what people type and
 * may be renamed. `default` always exists. A removed workspace stays as a tombstone
 * (`removed_at`): its id is never given again, so nothing made for it (an API key, a hook
 * URL, a signed link, all of which name the id) can open a workspace made later.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { InvalidInputError, NotFoundError, RecordExistsError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import { COLLECTIONS, type Collection, type Store } from '../store/store.ts';
import { revokeWorkspaceKeys } from './api-keys.ts';
import { checkWorkspaceName, DEFAULT_WORKSPACE, suggestWorkspaceName } from './names.ts';

export const WorkspaceSchema = z.object({
  id: z.string().min(1),
  version: z.number().int().optional(),
  name: z.string().min(1),
  created_at: z.string(),
  /** Set when the workspace was removed: the record stays so that its id is never reused. */
  removed_at: z.string().nullable().default(null),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

/** The collections whose records make a workspace "not empty" (it cannot be deleted then). */
export const CONTENT_COLLECTIONS: readonly Collection[] = [
  'workflows',
  'runs',
  'decisions',
  'rules',
  'credentials',
  'tool_servers',
  'skills',
  'agents',
  'artifacts',
  'chats',
];

export class WorkspaceRegistry {
  constructor(private readonly platform: Store) {}

  /** Every workspace, by name; `default` is made on first call. */
  async list(): Promise<Workspace[]> {
    return (await this.everyRecord()).filter((w) => w.removed_at === null);
  }

  /** The live workspace whose id is `id`, or undefined (never made, or removed). */
  async byId(id: string): Promise<Workspace | undefined> {
    if (id === DEFAULT_WORKSPACE) return (await this.list()).find((w) => w.id === id);
    const raw = await this.platform.get('workspaces', id);
    const found = raw ? parseRecord(WorkspaceSchema, 'workspaces', raw) : undefined;
    return found?.removed_at === null ? found : undefined;
  }

  /** Every record, tombstones of removed workspaces included. */
  private async everyRecord(): Promise<Workspace[]> {
    const raw = await this.platform.list('workspaces');
    const all = raw.map((r) => parseRecord(WorkspaceSchema, 'workspaces', r));
    if (!all.some((w) => w.id === DEFAULT_WORKSPACE)) all.push(await this.ensureDefault());
    return all.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The workspace called `name` (or, failing that, whose id it is), or NotFoundError naming the command that lists them. */
  async resolve(name: string): Promise<Workspace> {
    const all = await this.list();
    const found = all.find((w) => w.name === name) ?? all.find((w) => w.id === name);
    if (found) return found;
    // "Team Ops" for the workspace team-ops: say which one was meant.
    const meant = suggestWorkspaceName(name);
    const near =
      meant && meant !== name && all.some((w) => w.name === meant) ? `; did you mean "${meant}"?` : '';
    throw new NotFoundError(`no workspace "${name}" (see: handoff workspaces)${near}`);
  }

  /** Adds a workspace; its id is its first name (or that name plus a suffix when taken). */
  async add(name: string): Promise<Workspace> {
    checkWorkspaceName(name);
    const all = await this.everyRecord();
    if (all.some((w) => w.name === name && w.removed_at === null))
      throw new InvalidInputError(`workspace "${name}" already exists`);
    const taken = new Set(all.map((w) => w.id)); // a removed workspace's id too: never given twice
    const id = taken.has(name) ? `${name}-${randomBytes(3).toString('hex')}` : name;
    return WorkspaceSchema.parse(
      await this.platform.create('workspaces', {
        id,
        name,
        created_at: new Date().toISOString(),
        removed_at: null,
      }),
    );
  }

  /** Renames a workspace; its records stay where they are. */
  async rename(from: string, to: string): Promise<Workspace> {
    checkWorkspaceName(to);
    const workspace = await this.resolve(from);
    if (from === to) return workspace;
    if ((await this.list()).some((w) => w.name === to))
      throw new InvalidInputError(`workspace "${to}" already exists`);
    const { version = 1, ...rest } = workspace;
    return WorkspaceSchema.parse(await this.platform.update('workspaces', { ...rest, name: to }, version));
  }

  /**
   * Deletes an empty workspace: `store` is the workspace's own; its leftover records
   * (settings, profile, usage, audit) go with it. Refused for `default` and for a
   * workspace that still has workflows, runs, rules, credentials or other content.
   */
  async remove(name: string, store: Store): Promise<Workspace> {
    const workspace = await this.resolve(name);
    if (workspace.id === DEFAULT_WORKSPACE)
      throw new InvalidInputError('the default workspace cannot be deleted (rename it instead)');
    for (const collection of CONTENT_COLLECTIONS) {
      const count = (await store.list(collection)).length;
      if (count > 0)
        throw new InvalidInputError(
          `workspace "${name}" is not empty: it has ${count} ${collection}; delete them first`,
        );
    }
    // Its keys open nothing from now on; its id stays taken (a tombstone), so a workspace made
    // later under the same name gets another id, and none of this one's keys, hooks or links.
    await revokeWorkspaceKeys(this.platform, workspace.id);
    const { version = 1, ...rest } = workspace;
    const removed = await this.platform.update(
      'workspaces',
      { ...rest, removed_at: new Date().toISOString() },
      version,
    );
    // What is left (settings, profile, usage, audit...): the content collections are empty.
    for (const collection of COLLECTIONS.filter((c) => !CONTENT_COLLECTIONS.includes(c)))
      for (const record of await store.list(collection)) await store.delete(collection, record.id);
    return WorkspaceSchema.parse(removed);
  }

  private async ensureDefault(): Promise<Workspace> {
    const record = {
      id: DEFAULT_WORKSPACE,
      name: DEFAULT_WORKSPACE,
      created_at: new Date().toISOString(),
      removed_at: null,
    };
    try {
      return WorkspaceSchema.parse(await this.platform.create('workspaces', record));
    } catch (error) {
      if (!(error instanceof RecordExistsError)) throw error;
      return parseRecord(WorkspaceSchema, 'workspaces', (await this.platform.get('workspaces', record.id))!);
    }
  }
}

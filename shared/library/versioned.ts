/**
 * Named, versioned definitions (skills, agents): every save of a changed definition is a
 * new record `<name>@<n>`, made with a conditional create (the create is the claim: of two
 * savers, one gets n and the other n+1). Old versions are kept; deleting a name removes
 * them all. Saving the same content again makes no new version.
 */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { NotFoundError, RecordExistsError } from '../errors/index.ts';
import { listRecords } from '../store/records.ts';
import type { Collection, Store } from '../store/store.ts';

/** Names of skills and agents: snake_case or kebab-case, 1-64 characters. */
export const LIBRARY_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
export const NAME_RULE = 'must be 1-64 lowercase letters, digits, "-" or "_", starting with a letter';

/** One stored version; `revision` is the definition's version (the store's own `version` is the record's). */
export function versionedSchema<C extends z.ZodType>(content: C) {
  return z.object({
    id: z.string(),
    version: z.number().int().optional(),
    schemaVersion: z.literal(1).default(1),
    name: z.string(),
    revision: z.number().int().min(1),
    content,
    created_at: z.string(),
  });
}

/** A definition as people and the API see it: its name, version number and content. */
export interface Versioned<T> {
  name: string;
  version: number;
  created_at: string;
  content: T;
}

/** One collection of named, versioned definitions. */
export class VersionedLibrary<T> {
  private readonly schema;

  constructor(
    private readonly collection: Collection,
    content: z.ZodType<T>,
    /** How one is called in messages: `skill`, `agent`. */
    private readonly noun: string,
  ) {
    this.schema = versionedSchema(content);
  }

  /** Every version of every name, grouped by name, oldest version first. */
  private async all(store: Store): Promise<Map<string, Versioned<T>[]>> {
    const byName = new Map<string, Versioned<T>[]>();
    for (const r of await listRecords(store, this.collection, this.schema)) {
      const list = byName.get(r.name) ?? [];
      list.push({ name: r.name, version: r.revision, created_at: r.created_at, content: r.content });
      byName.set(r.name, list);
    }
    for (const list of byName.values()) list.sort((a, b) => a.version - b.version);
    return byName;
  }

  /** The latest version of each name, by name. */
  async listLatest(store: Store): Promise<Versioned<T>[]> {
    return [...(await this.all(store)).values()]
      .map((list) => list[list.length - 1]!)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every version of one name, oldest first (empty when there is none). */
  async versions(store: Store, name: string): Promise<Versioned<T>[]> {
    return (await this.all(store)).get(name) ?? [];
  }

  /** One version (default the latest), or NotFoundError with what to do. */
  async get(store: Store, name: string, version?: number): Promise<Versioned<T>> {
    const list = await this.versions(store, name);
    if (list.length === 0)
      throw new NotFoundError(`no ${this.noun} "${name}": see \`handoff ${this.noun}s\``);
    const found = version === undefined ? list[list.length - 1] : list.find((v) => v.version === version);
    if (!found)
      throw new NotFoundError(
        `${this.noun} "${name}" has no version ${version} (it has ${list.map((v) => v.version).join(', ')})`,
      );
    return found;
  }

  /**
   * Saves the content as the next version of `name`; the latest version unchanged when the
   * content is the same. `created` says whether a version was made.
   */
  async save(store: Store, name: string, content: T): Promise<{ saved: Versioned<T>; created: boolean }> {
    for (;;) {
      const list = await this.versions(store, name);
      const latest = list[list.length - 1];
      if (latest && isDeepStrictEqual(latest.content, content)) return { saved: latest, created: false };
      const revision = (latest?.version ?? 0) + 1;
      const record = this.record(name, revision, content);
      try {
        await store.create(this.collection, record);
      } catch (error) {
        if (error instanceof RecordExistsError) continue; // another save took that number
        throw error;
      }
      return { saved: this.view(record), created: true };
    }
  }

  /** The stored record of a version (for batched writes, see workspace apply). */
  record(name: string, revision: number, content: T) {
    return {
      id: `${name}@${revision}`,
      schemaVersion: 1 as const,
      name,
      revision,
      content,
      created_at: new Date().toISOString(),
    };
  }

  /** Removes every version of `name`; NotFoundError when there is none. */
  async delete(store: Store, name: string): Promise<number> {
    const list = await this.versions(store, name);
    if (list.length === 0)
      throw new NotFoundError(`no ${this.noun} "${name}": see \`handoff ${this.noun}s\``);
    for (const v of list) await store.delete(this.collection, `${name}@${v.version}`);
    return list.length;
  }

  private view(record: ReturnType<VersionedLibrary<T>['record']>): Versioned<T> {
    return {
      name: record.name,
      version: record.revision,
      created_at: record.created_at,
      content: record.content,
    };
  }
}

import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { entryProblems, refuseAdministratorSettings } from '../access/admin-settings.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import type { Collection, Store } from '../store/store.ts';
import {
  BUILTIN_ENTRIES,
  requiredCredentials,
  ServerEntrySchema,
  type ServerEntry,
  type ServerEntryInput,
} from './servers.ts';

const COLLECTION: Collection = 'tool_servers';
const SCHEMA_VERSION = 1;

const TemplatesSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** A stored record: a user entry, or only settings (disabled, templates) over a built-in one. */
const StoredServerSchema = z.object({
  id: z.string(),
  schemaVersion: z.literal(SCHEMA_VERSION),
  entry: ServerEntrySchema.optional(),
  disabled: z.boolean().default(false),
  templates: TemplatesSchema.default({}),
  updated_at: z.string(),
});
type StoredServer = z.infer<typeof StoredServerSchema>;

/** One entry as the registry sees it: built-ins with the person's settings applied. */
export interface RegistryEntry {
  entry: ServerEntry;
  source: 'builtin' | 'user';
  disabled: boolean;
}

/** `ready`, `disabled`, `needs AWS`, `needs credential NAME` or `error: why`. */
export type EntryStatus =
  'ready' | 'disabled' | 'needs AWS' | `needs credential ${string}` | `error: ${string}`;

async function storedRecords(store: Store): Promise<Map<string, StoredServer>> {
  const records = (await store.list(COLLECTION)).map((raw) =>
    parseRecord(StoredServerSchema, COLLECTION, raw),
  );
  return new Map(records.map((r) => [r.id, r]));
}

function merge(
  base: ServerEntry,
  stored: StoredServer | undefined,
  source: RegistryEntry['source'],
): RegistryEntry {
  const entry = stored?.entry ?? base;
  return {
    entry: { ...entry, templates: { ...entry.templates, ...(stored?.templates ?? {}) } },
    source,
    disabled: stored?.disabled ?? false,
  };
}

/** Every entry: the built-ins (as the person set them) and the ones the person added. */
export async function listEntries(store: Store): Promise<RegistryEntry[]> {
  const stored = await storedRecords(store);
  const builtins = BUILTIN_ENTRIES.map((b) => {
    const s = stored.get(b.name);
    return merge(b, s, s?.entry ? 'user' : 'builtin');
  });
  const added = [...stored.values()]
    .filter((s) => s.entry && !BUILTIN_ENTRIES.some((b) => b.name === s.id))
    .map((s) => merge(s.entry!, s, 'user'));
  return [...builtins, ...added.sort((a, b) => a.entry.name.localeCompare(b.entry.name))];
}

/** One entry by name, or NotFoundError. */
export async function getEntry(store: Store, name: string): Promise<RegistryEntry> {
  const found = (await listEntries(store)).find((e) => e.entry.name === name);
  if (!found) throw new NotFoundError(`no integration named ${name}; see handoff integrations`);
  return found;
}

/** Adds (or replaces) a user entry; a built-in of the same name is shadowed by it. */
export async function addEntry(store: Store, input: ServerEntryInput): Promise<RegistryEntry> {
  const parsed = ServerEntrySchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(
      `integration ${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  await refuseAdministratorSettings(() => entryProblems(parsed.data, `integration ${parsed.data.name}: `));
  const current = (await storedRecords(store)).get(parsed.data.name);
  await write(store, { ...blank(parsed.data.name), ...current, entry: parsed.data });
  return getEntry(store, parsed.data.name);
}

/** Removes a user entry (a shadowed built-in comes back); built-ins can only be disabled. */
export async function removeEntry(store: Store, name: string): Promise<void> {
  const current = (await storedRecords(store)).get(name);
  if (!current?.entry) {
    if (BUILTIN_ENTRIES.some((b) => b.name === name))
      throw new InvalidInputError(
        `${name} is built in; disable it instead: handoff integrations disable ${name}`,
      );
    throw new NotFoundError(`no integration named ${name}`);
  }
  await store.delete(COLLECTION, name);
}

/** Disables or enables an entry (built-in or added); a disabled entry is never connected. */
export async function setDisabled(store: Store, name: string, disabled: boolean): Promise<RegistryEntry> {
  await getEntry(store, name);
  const current = (await storedRecords(store)).get(name);
  await write(store, { ...blank(name), ...current, disabled });
  return getEntry(store, name);
}

/** Sets the argument template of one world-changing tool of an entry (built-in or added). */
export async function setTemplate(
  store: Store,
  name: string,
  tool: string,
  template: Record<string, unknown>,
): Promise<RegistryEntry> {
  await getEntry(store, name);
  const current = (await storedRecords(store)).get(name);
  const templates = { ...(current?.templates ?? {}), [tool]: template };
  await write(store, { ...blank(name), ...current, templates });
  return getEntry(store, name);
}

function blank(name: string): StoredServer {
  return { id: name, schemaVersion: SCHEMA_VERSION, disabled: false, templates: {}, updated_at: '' };
}

async function write(store: Store, record: StoredServer): Promise<void> {
  const { entry, ...rest } = record;
  await store.put(COLLECTION, { ...rest, ...(entry ? { entry } : {}), updated_at: new Date().toISOString() });
}

/** Whether this process can reach AWS credentials (env keys, a profile, a role, a Lambda). */
export function awsAvailable(env: NodeJS.ProcessEnv): boolean {
  return Boolean(
    (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) ||
    env.AWS_PROFILE ||
    env.AWS_WEB_IDENTITY_TOKEN_FILE ||
    env.AWS_CONTAINER_CREDENTIALS_FULL_URI ||
    env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI ||
    env.AWS_LAMBDA_FUNCTION_NAME,
  );
}

/** Whether `command` can be run: an executable path, or found on PATH. */
export function commandExists(command: string, env: NodeJS.ProcessEnv): boolean {
  const candidates = command.includes(path.sep)
    ? [command]
    : (env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The entry's status without any network call: what is missing before it can connect. */
export function statusOf(reg: RegistryEntry, have: ReadonlySet<string>, env: NodeJS.ProcessEnv): EntryStatus {
  if (reg.disabled) return 'disabled';
  const t = reg.entry.transport;
  if (t.kind === 'agentcore') return awsAvailable(env) ? 'ready' : 'needs AWS';
  const missing = requiredCredentials(reg.entry).find((name) => !have.has(name));
  if (missing) return `needs credential ${missing}`;
  if (t.kind === 'stdio' && !commandExists(t.command, env))
    return `error: command "${t.command}" not found on PATH`;
  return 'ready';
}

/**
 * API keys kept in the platform store (collection `api_keys`): each is shown once when
 * made, stored only as a SHA-256 hash, and scoped to one workspace (or to all, `null`).
 * A key reads `hk_<id>_<secret>`; the id finds its record, the secret is compared in
 * constant time. Revoked keys stay listed, marked, and open nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError } from '../errors/index.ts';
import { parseRecord } from '../store/records.ts';
import { DEFAULT_WORKSPACE } from './names.ts';
import type { Store } from '../store/store.ts';

export const ApiKeySchema = z.object({
  id: z.string().min(1),
  version: z.number().int().optional(),
  /** The workspace id the key is limited to; null: every workspace. */
  workspace: z.string().nullable(),
  hash: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable().default(null),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;
/** A key as listed: never its hash or value. */
export type ApiKeyView = Omit<ApiKey, 'hash' | 'version'>;

const KEY = /^hk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Makes a key for `workspace` (an id, or null for all); the value is returned here only. */
export async function addApiKey(
  platform: Store,
  workspace: string | null,
): Promise<{ key: string; record: ApiKeyView }> {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const record = ApiKeySchema.parse({
    id,
    workspace,
    hash: sha256(secret),
    created_at: new Date().toISOString(),
  });
  await platform.create('api_keys', record);
  return { key: `hk_${id}_${secret}`, record: viewOf(record) };
}

/** Every key, oldest first, without values. */
export async function listApiKeys(platform: Store): Promise<ApiKeyView[]> {
  const keys = (await platform.list('api_keys')).map((r) => parseRecord(ApiKeySchema, 'api_keys', r));
  return keys.sort((a, b) => a.created_at.localeCompare(b.created_at)).map(viewOf);
}

/** Revokes the key; revoking it again changes nothing. */
export async function revokeApiKey(platform: Store, id: string): Promise<ApiKeyView> {
  const raw = await platform.get('api_keys', id);
  if (!raw) throw new NotFoundError(`no API key ${id} (see: handoff keys)`);
  const key = parseRecord(ApiKeySchema, 'api_keys', raw);
  if (key.revoked_at) return viewOf(key);
  const { version = 1, ...rest } = key;
  const revoked = { ...rest, revoked_at: new Date().toISOString() };
  await platform.update('api_keys', revoked, version);
  return viewOf(revoked);
}

/**
 * The live key `given` is, or undefined (malformed, unknown, wrong secret, revoked, or its
 * workspace removed: a key belongs to the workspace's id, never to a name).
 */
export async function verifyApiKey(platform: Store, given: string): Promise<ApiKeyView | undefined> {
  const parts = KEY.exec(given);
  if (!parts) return undefined;
  const raw = await platform.get('api_keys', parts[1]!);
  if (!raw) return undefined;
  const key = parseRecord(ApiKeySchema, 'api_keys', raw);
  const same = timingSafeEqual(Buffer.from(sha256(parts[2]!), 'hex'), Buffer.from(key.hash, 'hex'));
  if (!same || key.revoked_at) return undefined;
  if (key.workspace !== null && !(await workspaceIsLive(platform, key.workspace))) return undefined;
  return viewOf(key);
}

/** Whether workspace `id` exists and was not removed (read from the platform store as it is now). */
async function workspaceIsLive(platform: Store, id: string): Promise<boolean> {
  if (id === DEFAULT_WORKSPACE) return true; // it cannot be removed
  const raw = await platform.get('workspaces', id);
  return raw !== undefined && (raw.removed_at ?? null) === null;
}

/** Revokes every live key of workspace `id` (when it is removed). */
export async function revokeWorkspaceKeys(platform: Store, id: string): Promise<void> {
  const keys = (await platform.list('api_keys')).map((r) => parseRecord(ApiKeySchema, 'api_keys', r));
  for (const key of keys) if (key.workspace === id && !key.revoked_at) await revokeApiKey(platform, key.id);
}

/** True when `given` looks like a stored key (so it is checked against the store, not the env key). */
export function isStoredKeyShape(given: string): boolean {
  return KEY.test(given);
}

function viewOf({ hash: _hash, version: _version, ...view }: ApiKey): ApiKeyView {
  return view;
}

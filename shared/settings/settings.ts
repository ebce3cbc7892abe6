/**
 * Settings a person changes from the Settings page, kept in the store (collection
 * `settings`, one record `app`) so they change behaviour without editing a file.
 * A stored value wins over the environment's default; a workflow's own
 * `confidence_threshold` wins over both.
 */
import { z } from 'zod';
import { refuseAdministratorSettings, settingsProblems } from '../access/admin-settings.ts';
import { RecordExistsError } from '../errors/index.ts';
import { getRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';

export const SETTINGS_ID = 'app';
export const NOTIFY_CHANNELS = ['console', 'slack', 'sns'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** An http(s) URL; anything else (javascript:, data:, ...) is refused. */
const WebUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' });

/** The stored record; null means "not set here: use the default". */
export const StoredSettingsSchema = z.object({
  id: z.literal(SETTINGS_ID),
  version: z.number().int().optional(),
  schemaVersion: z.literal(1).default(1),
  confidence_threshold: z.number().min(0).max(1).nullable().default(null),
  notify_channel: z.enum(NOTIFY_CHANNELS).nullable().default(null),
  ui_base_url: WebUrl.nullable().default(null),
  updated_at: z.string().nullable().default(null),
});
export type StoredSettings = z.infer<typeof StoredSettingsSchema>;

/** What a Settings form may change; an empty value clears the setting back to its default. */
export const SettingsInputSchema = z.strictObject({
  confidence_threshold: z.coerce
    .number({ error: 'must be a number between 0 and 1' })
    .min(0, { error: 'must be between 0 and 1' })
    .max(1, { error: 'must be between 0 and 1' })
    .nullable(),
  notify_channel: z
    .enum(NOTIFY_CHANNELS, { error: `must be one of ${NOTIFY_CHANNELS.join(', ')}` })
    .nullable(),
  ui_base_url: WebUrl.nullable(),
});
export type SettingsInput = z.infer<typeof SettingsInputSchema>;

/** The values in force. */
export interface Settings {
  confidence_threshold: number;
  notify_channel: NotifyChannel;
  ui_base_url: string;
}

/** The stored record, or null when nothing was ever saved. */
export async function readStoredSettings(store: Store): Promise<StoredSettings | null> {
  return (await getRecord(store, 'settings', StoredSettingsSchema, SETTINGS_ID)) ?? null;
}

/** The settings in force: each stored value, else its default; `stored` says which were stored. */
export async function getSettings(
  store: Store,
  defaults: Settings,
): Promise<Settings & { stored: StoredSettings | null }> {
  const stored = await readStoredSettings(store);
  return {
    confidence_threshold: stored?.confidence_threshold ?? defaults.confidence_threshold,
    notify_channel: stored?.notify_channel ?? defaults.notify_channel,
    ui_base_url: stored?.ui_base_url ?? defaults.ui_base_url,
    stored,
  };
}

/** Validates and saves the settings (last writer wins); returns the stored record. */
export async function saveSettings(store: Store, input: SettingsInput): Promise<StoredSettings> {
  const valid = SettingsInputSchema.parse(input);
  await refuseAdministratorSettings(() => settingsProblems(valid));
  const record = StoredSettingsSchema.parse({
    id: SETTINGS_ID,
    schemaVersion: 1,
    ...valid,
    updated_at: new Date().toISOString(),
  });
  await store.put('settings', record);
  return record;
}

/**
 * Writes a record the engine keeps in `settings` for itself (the running totals, never the
 * settings a person sets): with `version`, an update conditional on it; without, a create.
 */
export async function writeEngineRecord(
  store: Store,
  record: { id: string } & Record<string, unknown>,
  version?: number,
): Promise<void> {
  if (record.id === SETTINGS_ID) throw new Error(`"${SETTINGS_ID}" holds the settings, not an engine record`);
  if (version === undefined) await store.create('settings', record);
  else await store.update('settings', record, version);
}

/**
 * Notes a one-time step done (a migration's marker, `id` its own, never `SETTINGS_ID`): a
 * system record no person writes, kept with the settings so every write to them is here.
 * A marker already there (another process finished first) is left as it is.
 */
export async function markStepDone(store: Store, id: string): Promise<void> {
  try {
    await writeEngineRecord(store, { id, at: new Date().toISOString() });
  } catch (error) {
    if (!(error instanceof RecordExistsError)) throw error;
  }
}

/** Whether a one-time step's marker (markStepDone) is there. */
export async function isStepDone(store: Store, id: string): Promise<boolean> {
  return (await store.get('settings', id)) !== undefined;
}

/**
 * What a reader goes through the older way until a one-time step is done: null once its
 * marker is there; else every record `listAll` gives, unless `needNone` finds none of them
 * needs the step (a workspace this build wrote): then the marker is written and it is null.
 */
export async function unlessStepDone<T>(
  store: Store,
  id: string,
  listAll: () => Promise<T[]>,
  needNone: (all: T[]) => boolean | Promise<boolean>,
): Promise<T[] | null> {
  if (await isStepDone(store, id)) return null;
  const all = await listAll();
  if (!(await needNone(all))) return all;
  await markStepDone(store, id); // kept if another process marked it first
  return null;
}

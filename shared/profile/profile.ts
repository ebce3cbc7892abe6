/**
 * The person's profile, one per workspace (collection `profile`, record `me`): their name,
 * the time zone schedules are read in, how they are notified, and quiet hours during which
 * questions wait for the next notify window (they are never answered by the quiet hours).
 */
import { z } from 'zod';
import { getRecord } from '../store/records.ts';
import type { Store } from '../store/store.ts';
import { NOTIFY_CHANNELS } from '../settings/settings.ts';

export const PROFILE_ID = 'me';
export const DEFAULT_TIME_ZONE = 'UTC';

/** True when the runtime knows the IANA time zone name (Europe/Paris, UTC, ...). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const TimeZone = z
  .string()
  .refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Paris or UTC' });
const ClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'must be a time of day as HH:MM (24-hour)' });

export const QuietHoursSchema = z.strictObject({ start: ClockTime, end: ClockTime });
export type QuietHours = z.infer<typeof QuietHoursSchema>;

/** The stored record; everything has a default, so an empty profile is valid. */
export const ProfileSchema = z.object({
  id: z.literal(PROFILE_ID),
  version: z.number().int().optional(),
  schemaVersion: z.literal(1).default(1),
  name: z.string().max(200).nullable().default(null),
  time_zone: TimeZone.default(DEFAULT_TIME_ZONE),
  notify_channel: z.enum(NOTIFY_CHANNELS).nullable().default(null),
  quiet_hours: QuietHoursSchema.nullable().default(null),
  updated_at: z.string().nullable().default(null),
});
export type Profile = z.infer<typeof ProfileSchema>;

/** What a person may change. */
export const ProfileInputSchema = z.strictObject({
  name: z.string().max(200).nullable().optional(),
  time_zone: TimeZone.optional(),
  notify_channel: z.enum(NOTIFY_CHANNELS).nullable().optional(),
  quiet_hours: QuietHoursSchema.nullable().optional(),
});
export type ProfileInput = z.infer<typeof ProfileInputSchema>;

/** The stored profile, or the defaults when none was saved. */
export async function readProfile(store: Store): Promise<Profile> {
  return (
    (await getRecord(store, 'profile', ProfileSchema, PROFILE_ID)) ??
    ProfileSchema.parse({ id: PROFILE_ID })
  );
}

/** Validates the change, merges it over the stored profile and saves it (last writer wins). */
export async function saveProfile(store: Store, input: ProfileInput): Promise<Profile> {
  const change = ProfileInputSchema.parse(input);
  const current = await readProfile(store);
  const record = ProfileSchema.parse({
    ...current,
    ...change,
    version: undefined,
    updated_at: new Date().toISOString(),
  });
  await store.put('profile', record);
  return record;
}

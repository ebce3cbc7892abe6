/**
 * The person's profile, one per workspace (collection `profile`, record `me`): their name,
 * the time zone schedules are read in, how they are notified, and quiet hours during which
 * questions wait for the next notify window (they are never answered by the quiet hours).
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';
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

export const QuietHoursSchema = z
  .strictObject({ start: ClockTime, end: ClockTime })
  .refine((q) => q.start !== q.end, { error: 'start and end must differ' });
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
    (await getRecord(store, 'profile', ProfileSchema, PROFILE_ID)) ?? ProfileSchema.parse({ id: PROFILE_ID })
  );
}

/** Validates the change (InvalidInputError naming the field), merges it over the stored profile and saves it (last writer wins). */
export async function saveProfile(store: Store, input: ProfileInput): Promise<Profile> {
  const parsed = ProfileInputSchema.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(profileIssues(parsed.error).join('; '));
  const change = parsed.data;
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

/** One line per problem of a profile change: `<field>: <what is wrong>`. */
export function profileIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    if (i.code === 'unrecognized_keys')
      return `${i.keys.join(', ')}: unknown field (allowed: name, time_zone, notify_channel, quiet_hours)`;
    const path = i.path.map(String).join('.');
    return `${path || 'profile'}: ${i.message}`;
  });
}

/** `22:00-07:00` as quiet hours; `off` (or empty) as none; InvalidInputError otherwise. */
export function parseQuietHours(text: string): QuietHours | null {
  const t = text.trim();
  if (t === '' || t.toLowerCase() === 'off') return null;
  const m = /^(\S+)\s*-\s*(\S+)$/.exec(t);
  const parsed = QuietHoursSchema.safeParse(m ? { start: m[1], end: m[2] } : null);
  if (!parsed.success)
    throw new InvalidInputError(
      `quiet hours "${t}": must be HH:MM-HH:MM in your time zone (24-hour, e.g. 22:00-07:00), or off`,
    );
  return parsed.data;
}

/** Minutes since midnight of `date` in `timeZone`. */
function minutesIn(date: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When the quiet hours around `now` end (the next notify window opens), or null when `now`
 * is not in quiet hours. A window may cross midnight (22:00-07:00). Read in the profile's
 * time zone, so a daylight-saving change moves it with the clock on the wall.
 */
export function quietUntil(profile: Pick<Profile, 'quiet_hours' | 'time_zone'>, now: Date): Date | null {
  const q = profile.quiet_hours;
  if (!q) return null;
  const start = toMinutes(q.start);
  const end = toMinutes(q.end);
  const at = minutesIn(now, profile.time_zone);
  const inside = start < end ? at >= start && at < end : at >= start || at < end;
  if (!inside) return null;
  // The wall-clock distance to the end; a daylight-saving change inside it moves the end by
  // its shift (an hour, somewhere half an hour), so those are tried next.
  const wall = Math.floor(now.getTime() / 60_000) * 60_000 + ((end - at + 1440) % 1440) * 60_000;
  for (const shift of [0, -60, 60, -30, 30]) {
    const candidate = new Date(wall + shift * 60_000);
    if (candidate > now && minutesIn(candidate, profile.time_zone) === end) return candidate;
  }
  return new Date(wall); // the end falls in a skipped hour: the wall-clock distance is close enough
}

/** The profile as `handoff profile --json` and `GET /api/profile` show it. */
export function profileView(p: Profile) {
  return {
    name: p.name,
    time_zone: p.time_zone,
    notify_channel: p.notify_channel,
    quiet_hours: p.quiet_hours,
    updated_at: p.updated_at,
  };
}

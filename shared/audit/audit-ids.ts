/**
 * Audit entry ids carry their run's key (`aud_<run key>_<rest>`, as decision ids do), so a
 * run's audit is one read by id prefix on either store. Entries written before this scheme
 * (`aud_<time>_<random>` or `aud_<hash>`) stay readable by id; `handoff store migrate`
 * rewrites them (migrate-keys.ts) and marks their runs `keyed`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { runKey, stableId } from '../store/ids.ts';

/** What every audit id of the run begins with. */
export function runAuditPrefix(runId: string): string {
  return `aud_${runKey(runId)}_`;
}

/** A stable audit id of the run (a retry or a recovery names the same entry). */
export function auditIdFor(runId: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
  return `${runAuditPrefix(runId)}${digest}`;
}

/** A new, time-sortable audit id of the run. */
export function newAuditId(runId: string): string {
  const time = Date.now().toString(36).padStart(9, '0');
  return `${runAuditPrefix(runId)}${time}${randomBytes(3).toString('hex')}`;
}

/** Whether `id` is an audit id of the run's scheme (false for an entry written before it). */
export function isKeyedAuditId(id: string, runId: string): boolean {
  return id.startsWith(runAuditPrefix(runId));
}

/** The id an entry written before the scheme takes when migrated: the run's prefix, then its old id's tail. */
export function migratedAuditId(oldId: string, runId: string): string {
  return `${runAuditPrefix(runId)}${oldId.replace(/^aud_/, '')}`;
}

/** The id the scheme before this one gave a stable entry (still read by crash recovery until migrated). */
export function legacyAuditId(...parts: string[]): string {
  return stableId('aud', ...parts);
}

import { createHash, randomBytes } from 'node:crypto';

/** A new time-sortable id with a prefix, e.g. `run_mi3k2x0a_9f3c1e`. */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}_${randomBytes(3).toString('hex')}`;
}

/** A stable id derived from its parts, so a retry names the same thing. */
export function stableId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16)}`;
}

/**
 * The key of a run that its children's ids begin with (`dec_<key>_…`, `aud_<key>_…`), so
 * "this run's decisions" or "this run's audit" is one read by id prefix. Eight hex digits:
 * two runs may share one, so a reader filters by `run_id`.
 */
export function runKey(runId: string): string {
  return createHash('sha256').update(['run', runId].join('\u0000')).digest('hex').slice(0, 8);
}
